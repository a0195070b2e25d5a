package redact_test

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/redact"
)

// FuzzRedact: Redact never panics, is idempotent, and a secret planted on
// its own line between arbitrary texts is always gone.
func FuzzRedact(f *testing.F) {
	planted := secrets(rand.New(rand.NewPCG(3, 4)))
	for i, s := range lookalikes(rand.New(rand.NewPCG(5, 6)))[:40] {
		f.Add(s, "", uint8(i))
	}
	f.Add("password=", "x", uint8(0))
	f.Add(`{"token": "`, `"}`, uint8(7))
	f.Add("-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", uint8(60))
	f.Add("https://user:", "@host", uint8(12))
	f.Add("curl -u a:", "@h -b 'sid=", uint8(70))
	f.Add("     1→", "\n     2→", uint8(90))
	r := redact.New(redact.Options{})
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		s := planted[int(which)%len(planted)]
		in := prefix + "\n" + s.text + "\n" + suffix
		out, _ := r.Redact(in)
		for _, p := range s.parts {
			if strings.Contains(out, p) {
				t.Fatalf("%s left in %q -> %q", s.kind, in, out)
			}
		}
		if again, c := r.Redact(out); again != out {
			t.Fatalf("not idempotent (%v): %q -> %q -> %q", c, in, out, again)
		}
		bare, _ := r.Redact(prefix + suffix)
		if again, _ := r.Redact(bare); again != bare {
			t.Fatalf("not idempotent: %q -> %q -> %q", prefix+suffix, bare, again)
		}
	})
}

// costUnits repeat into the inputs that make a scan that is not linear
// show: a prefix of every kind of rule, alone and with what its rule reads
// after it.
var costUnits = []string{
	"eyJ", " eyJhbGciOiJIUzI1NiJ9.", " eyJhbGciOiJIUzI1NiJ9.e30.", "AKIA", "sk-", "ghp_", "xoxb-", ":AA", "1234567890:AA", "SG.",
	"hooks.slack.com/", "/api/webhooks/", "Bearer ", "basic ", "authorization: ", "docker login ", "@tcp(", "://",
	"://a:b@", "://a:@@", "://a:/#<>", "key", "passpass", "a=", "pass=", "password=", "token: ", `password="`, "password='a ",
	"password: a.b.c.", "PASSWORD=a&", "pass&", "a=b&", "x&&", `\npassword `, `login \npassword \n`,
	"machine h login u password ", "curl ", "curl -u a:b ", "curl -b a=b -u a:b ", "mysql -pX ", "sshpass -p ",
	"redis-cli -a ", "cookie=", "cookie: a=b; ", "Set-Cookie: sid=", "-----BEGIN ", "-----BEGIN PRIVATE KEY-----\n",
	"-----BEGIN PRIVATE KEY-----\nAAAA\n", "-----END PRIVATE KEY-----\n", "AAAA\n-----END PRIVATE KEY-----\n",
	"    1→AAAA\n", `     1\tAAAA\n-----END PRIVATE KEY-----`, "(((((", "password=a(", "\\u003c",
	// Round two: long values, the command-line family, folds, generators.
	"client-key-data: " + strings.Repeat("QUJD", 160), `password="` + strings.Repeat("A1", 300), "token=" + strings.Repeat("a=", 300) + " ",
	"sqlcmd -P x ", "sqlcmd -P ", "echo x | sudo -S ", "echo x |", "htpasswd -b f u p ", "net use \\\\h\\s p ", "nmcli password ",
	"smbclient -U a%b ", "openssl -passin pass:x ", "create_superuser('a', 'b', 'c'", "create_user(", ":5432:", ":*:", "h:1:d:u:p\n",
	"a:1:b:c:d:", "openssl rand -hex 16\n", "openssl rand\nAAAAAAAAAAAAAAAA1\n", "[s]\n", "[s]\ndb_password = x\n", "db_password = x\n",
	"DB_PASSWORD\\=x ", "/bot1234567890:AA", "eyJhbGciOiJIUzI1NiJ9.e30\n", "eyJhbGciOiJIUzI1NiJ9\n", "ghp_abcdefgh\n", "AKIA1234\n",
	"aws_secret_access_key=abcdefgh\n", "ABCDEFGHabcdefgh12\n", "ghp_" + strings.Repeat("a1", 600) + "\n",
}

// Cost bounds: the work a text may cost per byte before the fuzz target
// calls it a finding (half of the budget after which a text is omitted;
// real transcripts cost under 0.4 a byte), and the CPU time of 100 kB
// (10 ms), with a factor for a busy machine (its caches) and a larger one
// under the race detector.
const (
	costPerByte = 32
	timePer100k = 10 * time.Millisecond
)

func timeFactor() time.Duration {
	switch {
	case raceBuild:
		return 50
	case fuzzing():
		return 20 // coverage instrumentation slows every loop
	}
	return 5
}

// fuzzing reports whether the test runs with -fuzz, rather than over the
// kept corpus.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// FuzzRedactCost: whatever a text is made of, masking it costs a bounded
// amount of work per byte and time, so that a hook never stalls on it and
// no real text is omitted for its cost; a secret planted in the middle of
// it is gone. The input is a unit repeated to 100 kB, the shape that makes
// a scan that is not linear show.
func FuzzRedactCost(f *testing.F) {
	for i, u := range costUnits {
		f.Add(u, "", uint8(i))
	}
	planted := secrets(rand.New(rand.NewPCG(13, 14)))
	r := redact.New(redact.Options{})
	f.Fuzz(func(t *testing.T, unit, tail string, which uint8) {
		if unit == "" {
			return
		}
		const size = 100_000
		fill := strings.Repeat(unit, size/2/len(unit)+1)[:size/2]
		s := planted[int(which)%len(planted)]
		in := fill + "\n" + s.text + "\n" + fill + tail
		work, omitted := r.Work(in)
		if omitted || work > costPerByte*len(in)+redact.WorkBudget(0) {
			t.Fatalf("%q repeated: work %d for %d bytes (%.1f a byte), omitted %v", unit, work, len(in), float64(work)/float64(len(in)), omitted)
		}
		start := cpuTime()
		out, _ := r.Redact(in)
		took := cpuTime() - start
		for _, p := range s.parts {
			if strings.Contains(out, p) {
				t.Fatalf("%q repeated: %s left", unit, s.kind)
			}
		}
		if limit := timeFactor() * timePer100k * time.Duration(len(in)) / size; took > limit {
			t.Fatalf("%q repeated: %v for %d bytes, limit %v", unit, took, len(in), limit)
		}
	})
}

// TestSevenMBLine: a single 7 MB line of each cost unit, the size of a
// pathological tool output, costs a bounded amount of work a byte (so a
// hook masks it well within its 2 s deadline: BenchmarkRedactPathological
// gives the times) and is not omitted.
func TestSevenMBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("7 MB lines")
	}
	r := redact.New(redact.Options{})
	worst, unitWorst := 0.0, ""
	var slowest time.Duration
	slowUnit := ""
	for _, u := range costUnits[len(costUnits)-40:] {
		line := strings.Repeat(u, 7<<20/len(u))
		start := cpuTime()
		work, omitted := r.Work(line)
		if took := cpuTime() - start; took > slowest {
			slowest, slowUnit = took, u
		}
		perByte := float64(work) / float64(len(line))
		if perByte > worst {
			worst, unitWorst = perByte, u
		}
		if omitted || work > costPerByte*len(line)+redact.WorkBudget(0) {
			t.Errorf("%q repeated to 7 MB: work %.1f a byte, omitted %v", u, perByte, omitted)
		}
	}
	t.Logf("7 MB lines: worst %.2f work a byte (%q); slowest %v of CPU (%q)", worst, unitWorst, slowest, slowUnit)
}
