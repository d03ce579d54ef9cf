package config

import "github.com/ctxls/ctxls/providers/diag"

// ProblemCode is the diagnostic code of every problem in .ctxls.yaml, the
// same for the language server and `ctxls check`.
const ProblemCode = diag.Config
