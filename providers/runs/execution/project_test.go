package execution

import (
	"context"
	"sync/atomic"
	"testing"
)

// An execution created without a project type gets the detected one;
// GetOrCreate detects only when it creates.
func TestProjectTypeDetected(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	s := newStore(t, openDB(t), Options{DetectProjectType: func(context.Context) string {
		calls.Add(1)
		return "fastapi"
	}})
	ctx := t.Context()
	st, err := s.Create(ctx, "shop", "")
	if err != nil || st.ProjectType != "fastapi" {
		t.Fatalf("Create without a type: %+v, %v", st, err)
	}
	if got, _ := s.Get(ctx, st.SessionID); got.ProjectType != "fastapi" {
		t.Errorf("recorded project type %q", got.ProjectType)
	}
	st, err = s.Create(ctx, "shop", "django")
	if err != nil || st.ProjectType != "django" || calls.Load() != 1 {
		t.Errorf("Create with a type: %+v, %v, %d detections", st, err, calls.Load())
	}
	if _, err := s.GetOrCreate(ctx, "shop"); err != nil || calls.Load() != 1 {
		t.Errorf("GetOrCreate of an existing project detected again: %v, %d detections", err, calls.Load())
	}
	st, err = s.GetOrCreate(ctx, "blog")
	if err != nil || st.ProjectType != "fastapi" || calls.Load() != 2 {
		t.Errorf("GetOrCreate of a new project: %+v, %v, %d detections", st, err, calls.Load())
	}
}
