package chunk

import (
	"slices"
	"testing"
)

func TestEditValues(t *testing.T) {
	tests := []struct {
		name, file, old, new string
		want                 []string
	}{
		{"toml setting", "pyproject.toml", "", "[tool.x]\nline-length = 100\n", []string{"line-length = 100"}},
		{"yaml setting", "deploy/app.yaml", "port: 80\n", "port: 80\nreplicas: 3\n", []string{"replicas: 3"}},
		{"env file", ".env.local", "", "DATABASE_URL=postgres://db:5432/app\n", []string{"DATABASE_URL=postgres://db:5432/app"}},
		{"json setting", "tsconfig.json", `{"strict": false}`, "{\n  \"strict\": true,\n  \"target\": {\n", []string{`"strict": true`}},
		{"elixir config keyword", "config/test.exs", "", "config :app, App.Endpoint,\n  http: [port: 4002],\n  server: false\n", []string{"http: [port: 4002]", "server: false"}},
		{"css custom property", "assets/site.css", "", ":root {\n  --border: #cbd5e1;\n}\n", []string{"--border: #cbd5e1"}},
		{"go func", "server/handler.go", "", "func parseHeader(s string) error {\n", []string{"parseHeader"}},
		{"python class and def", "app/models.py", "class User:\n", "class User:\n    def full_name(self):\n", []string{"full_name"}},
		{"rust pub fn", "src/lib.rs", "", "pub async fn fetch_rows() -> Result<()> {\n", []string{"fetch_rows"}},
		{"ts export function", "src/api.ts", "", "export async function loadUser(id: string) {\n", []string{"loadUser"}},
		{"nested locals skipped", "src/app.js", "", "function pushSelection() {\n    if (x) {\n      const container = el;\n", []string{"pushSelection"}},
		{"short names skipped", "lib/m.ex", "", "def up do\n", nil},
		{"sql index", "db/schema.sql", "", "CREATE UNIQUE INDEX IF NOT EXISTS users_email_idx ON users(email);\n", []string{"users_email_idx"}},
		{"named index in migration", "priv/repo/migrations/1_add.exs", "", `create index(:posts, [:user_id], name: "posts_user_id_index")` + "\n", []string{"posts_user_id_index"}},
		{"ui string literal", "src/App.jsx", "", `setError("Could not save the draft");` + "\n", []string{"Could not save the draft"}},
		{"markup prose line", "templates/list.html", "", "<p>\n  No items match your filter.\n</p>\n", []string{"No items match your filter."}},
		{"code strings are not ui text", "src/x.js", "", `const k = "user_id"; log("debug");` + "\n", nil},
		{"unchanged lines ignored", "config/dev.exs", "  pool_size: 10\n", "  pool_size: 10\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := editValues(tt.file, tt.old, tt.new)
			if !slices.Equal(got, tt.want) {
				t.Errorf("editValues(%q) = %q, want %q", tt.file, got, tt.want)
			}
		})
	}
}

func TestEditValuesCapped(t *testing.T) {
	var content string
	for _, k := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"} {
		content += k + " = 1\n"
	}
	if got := editValues("app.ini", "", content); len(got) != maxValues {
		t.Errorf("got %d values, want the cap %d: %q", len(got), maxValues, got)
	}
}

func TestOutputValues(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"git commit", "[main 1a2b3c4] fix: handle empty input\n 2 files changed, 10 insertions(+)", []string{"commit 1a2b3c4 (main): fix: handle empty input"}},
		{"root commit", "[feature/x (root-commit) 0123abcd] initial import", []string{"commit 0123abcd (feature/x): initial import"}},
		{"exunit tally", "Finished in 0.3 seconds\n59 tests, 0 failures", []string{"59 tests, 0 failures"}},
		{"pytest tally", "===== 12 passed, 1 skipped in 0.42s =====", []string{"12 passed, 1 skipped"}},
		{"jest tally", "Tests:       3 passed, 3 total", []string{"3 passed, 3 total"}},
		{"last tally wins", "4 tests, 1 failure\n...\n5 tests, 0 failures", []string{"5 tests, 0 failures"}},
		{"git file mode is not a tally", " create mode 100644 test/app_test.exs", nil},
		{"nothing", "Already up to date.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outputValues(tt.out); !slices.Equal(got, tt.want) {
				t.Errorf("outputValues = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReportedIDs(t *testing.T) {
	out := "Done.\nagentId: a2898e3 (for resuming to continue this agent's work if needed)\nid: x"
	if got, want := reportedIDs(out), []string{"agentId: a2898e3"}; !slices.Equal(got, want) {
		t.Errorf("reportedIDs = %q, want %q", got, want)
	}
}
