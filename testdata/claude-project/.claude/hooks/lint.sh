#!/bin/sh
npx eslint --fix "$(jq -r '.tool_input.file_path')"
