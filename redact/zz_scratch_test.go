package redact_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

func TestZZScratch(t *testing.T) {
	r := redact.New(redact.Options{})
	long := strings.Repeat("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB", 36)
	for _, in := range []string{
		"    client-key-data: " + long,
		"AWS_SESSION_TOKEN=" + long[:900],
		`"SessionToken": "` + long[:900] + `"`,
		"sqlcmd -S db -U sa -P 'Sup3rS3cret!' -Q 'select 1'",
		"ldapsearch -x -D cn=admin,dc=ex,dc=org -w Adm1nPass -b dc=ex,dc=org",
		"htpasswd -b -c /etc/nginx/.htpasswd admin Secr3tPw",
		"echo 'Dock3rPw!' | docker login -u bot --password-stdin reg.example.com",
		"openssl pkcs12 -in a.p12 -passin pass:P12pass99 -out a.pem",
		"keytool -importcert -keystore ks.jks -storepass St0rePw -file a.crt",
		"zip -P Z1ppass -r out.zip dir",
		"smbclient //srv/share -U 'CORP\\alice%Sm8Pass'",
		"net use Z: \\\\srv\\share /user:CORP\\alice N3tPass",
		"mosquitto_pub -h broker -u dev -P Mq77pass -t t -m hi",
		"ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P Ipm1pass chassis status",
		"echo 'Sud0pass' | sudo -S apt-get update",
		"nmcli dev wifi connect HomeNet password W1fiPass99",
		"User.objects.create_superuser('admin', 'admin@example.com', 'Dj4ngoPw')",
		"db.internal:5432:app:appuser:PgP4ssw0rd",
		"POSTGRES_PASSWORD=Acme2025ChangeMe",
		"postgres://app:Acme2025ChangeMe@db:5432/app",
		"POSTGRES_PASSWORD=changeme",
		"bash: DB_PASSWORD\\=Xk9mP2q: command not found",
		"curl https://api.telegram.org/bot1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
		"[database]\nhost = db\ndb_password = sunshine\n",
		foldAt("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", 50) + "\n",
		"token: " + foldAt("ghp_AbCdEfGh1234IjKlMnOpQrStUvWx5678AbCd", 16) + "\nDone.",
		"aws_secret_access_key=wJalrXUt\nnFEMIK7MDENGbPxRfiCYzzKEYq1w2e3\n",
		"export GITHUB_TOKEN=ghp_AbCdEfGh1234\nIjKlMnOpQrStUvWx5678AbCd\n",
	} {
		out, c := r.Redact(in)
		fmt.Printf("%v\n  IN:  %.200q\n  OUT: %.200q\n", c, in, out)
	}
}

func foldAt(s string, w int) string {
	var b strings.Builder
	for len(s) > w {
		b.WriteString(s[:w] + "\n")
		s = s[w:]
	}
	b.WriteString(s)
	return b.String()
}

func TestZZGen(t *testing.T) {
	r := redact.New(redact.Options{})
	st := r.Stream(redact.Carry{})
	l1 := `{"parentUuid":"a","type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"openssl rand -base64 32","description":"Generate a secret"}}]},"uuid":"2f6c1a7e-3b1d-4c8e-9a0b-1c2d3e4f5a6b","requestId":"req_011CUabcDEF123ghiJKL456"}`
	l2 := `{"parentUuid":"b","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"q8XvZ3kP9wL2mN7bR4tY6uA1sD5fG0hJ8kL3zX7cV9b=","is_error":false}]},"uuid":"3f6c1a7e-3b1d-4c8e-9a0b-1c2d3e4f5a6b","toolUseResult":{"stdout":"q8XvZ3kP9wL2mN7bR4tY6uA1sD5fG0hJ8kL3zX7cV9b=","stderr":""}}`
	for _, l := range []string{l1, l2} {
		out, c := st.RedactJSON([]byte(l))
		fmt.Println(c, string(out))
	}
	out, c := r.Redact("$ openssl rand -hex 20\n9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\n$ git log -1 --format=%H\n")
	fmt.Println(c, out)
}
