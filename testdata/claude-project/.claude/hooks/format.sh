#!/bin/sh
jq -r '.tool_input.file_path' | xargs npx prettier --write
