import json, sys
call = json.load(sys.stdin)
sys.exit(2 if "rm -rf" in call.get("tool_input", {}).get("command", "") else 0)
