package claudesettings

// roundTrips are settings files as people have them; install followed by
// uninstall must give each back byte for byte. Shared by the table tests
// and as fuzz seeds.
var roundTrips = []struct {
	name    string
	content string // "" means the file does not exist
}{
	{"missing", ""},
	{"empty object", "{}\n"},
	{"empty object no newline", "{}"},
	{"empty object spaced", "{ }\n"},
	{"other keys only", `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": ["Bash(go test:*)", "Read(~/.zshrc)"],
    "deny": []
  },
  "cleanupPeriodDays": 1e2,
  "env": {"GREETING": "h\u00e9llo \ud83d\ude00", "PATH_EXTRA": "/opt/x\/y"}
}
`},
	{"four spaces", `{
    "model": "sonnet",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "~/.claude/guard.sh"
                    }
                ]
            }
        ]
    }
}
`},
	{"same events other tools", `{
  "hooks": {
    "PreCompact": [
      {
        "matcher": "manual",
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.claude/backup.py",
            "timeout": 20
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [{"type": "command", "command": "echo hello"}]
      },
      {
        "matcher": "compact",
        "hooks": [{"type": "command", "command": "cat NOTES.md"}]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "notify-send done"}
        ]
      }
    ]
  },
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
}
`},
	{"empty hooks", "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n"},
	{"empty event arrays", "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"PreCompact\": [ ]\n  }\n}\n"},
	{"empty matcher group", `{"hooks": {"PreCompact": [{"matcher": "manual", "hooks": []}]}}`},
	{"minified", `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"env":{"A":"1"}}`},
	{"minified empty hooks", `{"hooks":{}}`},
	{"tabs", "{\n\t\"model\": \"haiku\",\n\t\"hooks\": {\n\t\t\"UserPromptSubmit\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"log-prompt\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n"},
	{"crlf", "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"SessionEnd\": [\r\n      {\r\n        \"hooks\": [\r\n          {\r\n            \"type\": \"command\",\r\n            \"command\": \"cleanup\"\r\n          }\r\n        ]\r\n      }\r\n    ]\r\n  }\r\n}\r\n"},
	{"unicode", "{\n  \"outputStyle\": \"Erklärend — 説明\",\n  \"env\": {\"NAME\": \"\\u00e9t\\u00e9\", \"EMOJI\": \"🚀\"},\n  \"hooks\": {\"Notification\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo \\\"ünïcode\\\" && true\"}]}]}\n}\n"},
	{"no trailing newline", "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]\n      }\n    ]\n  }\n}"},
	{"inline event arrays in pretty file", "{\n  \"hooks\": {\n    \"PreCompact\": [{\"matcher\": \"auto\", \"hooks\": [{\"type\": \"command\", \"command\": \"a\"}]}],\n    \"SessionStart\": [{\"matcher\": \"resume\", \"hooks\": [{\"type\": \"command\", \"command\": \"b\"}]}]\n  }\n}\n"},
	{"odd spacing", "  {  \"a\" :  [ 1 ,2 ] ,\n\n   \"hooks\" :{ \"Stop\" : [ { \"hooks\" : [ ] } ] } }  \n\n"},
	{"other hooks in carryover-like names", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "carryover-sync hook stop"}, {"type": "command", "command": "/bin/carryover ingest"}]}]}}`},
}
