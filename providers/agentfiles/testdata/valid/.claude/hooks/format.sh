#!/bin/sh
jq -r .tool_input.file_path
