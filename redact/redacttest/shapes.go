package redacttest

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Fold breaks s into lines of w bytes, as fold -w or a terminal does.
func Fold(s string, w int) string {
	var b strings.Builder
	for len(s) > w {
		b.WriteString(s[:w] + "\n")
		s = s[w:]
	}
	b.WriteString(s)
	return b.String()
}

// pw returns a password of letters and digits with a symbol.
func pw(r *rand.Rand) string { return RS(r, Alnum, 9) + "!" + RS(r, Digits, 2) }

// RoundTwo are the shapes a second probe found stored in clear: long
// values, the command-line password forms of many tools, secrets wrapped
// across lines, and shapes from real sessions. Each is a whole text; what
// a Stream must carry from one text to the next is in Carried.
func RoundTwo(r *rand.Rand) []Secret {
	var ss []Secret
	add := func(kind, text string, parts ...string) {
		ss = append(ss, Secret{Kind: kind, Text: text, Parts: parts})
	}
	// Long values: length never switches masking off.
	keyData := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + RS(r, B64, 1650) + "\n-----END RSA PRIVATE KEY-----\n"))
	add("secret", "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\n    client-key-data: "+keyData+"\n",
		keyData[:64], keyData[1000:1064], keyData[len(keyData)-64:])
	session := "IQoJb3JpZ2luX2VjE" + RS(r, B64, 883)
	add("secret", "export AWS_SESSION_TOKEN="+session+"\n", session[:40], session[600:640], session[len(session)-40:])
	session = "FwoGZXIvYXdzE" + RS(r, B64, 890)
	add("secret", `{"Credentials": {"AccessKeyId": "ASIA`+RS(r, Upper, 14)+`27", "SecretAccessKey": "`+RS(r, Alnum, 40)+`", "SessionToken": "`+session+`"}}`,
		session[:40], session[500:540], session[len(session)-40:])
	long := RS(r, Alnum, 1500)
	add("github-pat", "token ghp_"+long+" end", long[:40], long[1200:1240])

	// Command-line password forms, one per tool of the family.
	for _, c := range []struct{ before, after string }{
		{"sqlcmd -S db.internal -U sa -P '", "' -Q 'SELECT 1'"},
		{"ldapsearch -x -H ldap://ldap.internal -D cn=admin,dc=example,dc=org -w ", " -b dc=example,dc=org"},
		{"ldapmodify -x -D cn=admin,dc=corp -w '", "' -f change.ldif"},
		{"htpasswd -b -c /etc/nginx/.htpasswd admin ", ""},
		{"htpasswd -nbB deploy ", ""},
		{"echo '", "' | docker login -u ci-bot --password-stdin registry.example.com"},
		{"echo \"", "\" | podman login quay.io -u bot --password-stdin"},
		{"openssl pkcs12 -export -in cert.pem -inkey key.pem -passout pass:", " -out bundle.p12"},
		{"openssl rsa -in enc.key -passin 'pass:", "' -out plain.key"},
		{"keytool -importcert -alias ca -file ca.crt -keystore trust.jks -storepass ", " -noprompt"},
		{"keytool -genkeypair -keystore app.jks -storepass changeit -keypass ", " -alias app"},
		{"zip -P ", " -r backup.zip data/"},
		{"7z a -p", " secret.7z docs/"},
		{"smbclient //fs01/share -U 'CORP\\alice%", "' -c 'ls'"},
		{"smbclient -L fs01 --user=bob%", ""},
		{"net use Z: \\\\fs01\\share /user:CORP\\alice ", ""},
		{"net use \\\\fs01\\ipc$ ", " /user:administrator"},
		{"mosquitto_pub -h broker.internal -u sensor -P ", " -t temp -m 21"},
		{"mosquitto_sub -h broker -u dev --pw ", " -t '#'"},
		{"ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P ", " chassis power status"},
		{"echo ", " | sudo -S systemctl restart nginx"},
		{"echo '", "' | sudo -kS apt-get install -y jq"},
		{"nmcli dev wifi connect HomeNet password ", ""},
		{"nmcli con modify office wifi-sec.psk ", ""},
		{"User.objects.create_superuser('admin', 'admin@example.com', '", "')"},
		{"python manage.py shell -c \"from django.contrib.auth.models import User; User.objects.create_user('bob', 'bob@example.com', '", "')\""},
		{"wget --user=ci --password=", " https://repo.example.com/artifact.tgz"},
		{"mongosh 'mongodb://db:27017' -u admin -p ", " --authenticationDatabase admin"},
		{"sqlplus system/", "@ORCL as sysdba"},
		{"lftp -u deploy,", " sftp://files.example.com"},
		{"skopeo copy --src-creds bot:", " docker://a/b docker://c/d"},
		{"xfreerdp /v:10.0.0.4 /u:admin /p:", " /cert:ignore"},
		{"rabbitmqctl add_user app ", ""},
		{"gpg --batch --passphrase ", " -d secrets.gpg"},
		{`C:\Tools\sqlcmd.exe -S db -U sa -P `, ` -Q "SELECT 1"`},
		{`NET USE \\fs01\share /USER:CORP\bob `, ""},
		{"net user svc_backup ", " /add"},
		{`NET USER deploy `, " /ADD /DOMAIN"},
		{"echo 'deploy:", "' | sudo chpasswd"},
		{"printf 'root:", "\\n' | /usr/sbin/chpasswd"},
		{"chpasswd <<< 'alice:", "'"},
	} {
		p := pw(r)
		if strings.HasPrefix(c.before, "echo ") && !strings.HasSuffix(c.before, "'") && !strings.HasSuffix(c.before, "\"") {
			p = RS(r, Alnum, 10) + "7"
		}
		add("password", "$ "+c.before+p+c.after+"\n", p)
	}

	p, p2 := pw(r), pw(r)
	add("password", "$ sudo chpasswd <<'EOF'\nbob:"+p+"\ncarol:"+p2+"\nEOF\n", p, p2)
	p = pw(r)
	add("password", "$ cat ~/.pgpass\ndb.internal:5432:app:appuser:"+p+"\n", p)
	p = pw(r)
	add("password", "*:*:*:replicator:"+p, p)

	// Secrets wrapped across lines.
	tok := JWT(r)
	add("jwt", "token:\n"+Fold(tok, 50)+"\n", tok[len(tok)-12:], tok[40:48])
	add("jwt", Fold("Authorization token="+tok, 50)+"\n", tok[60:70], tok[len(tok)-10:])
	aws := RS(r, Alnum+"/+", 40)
	add("aws-secret-access-key", "aws_secret_access_key="+aws[:8]+"\n"+aws[8:]+"\n", aws[8:])
	gh := "ghp_" + RS(r, Alnum, 36)
	add("github-pat", "export GITHUB_TOKEN="+gh[:16]+"\n"+gh[16:]+"\n", gh[16:])
	add("github-pat", Fold(gh, 16)+"\n", gh[16:32], gh[32:])
	sk := "sk-ant-api03-" + RS(r, URLSafe, 93) + "AA"
	add("anthropic-api-key", Fold("ANTHROPIC_API_KEY="+sk, 64)+"\n", sk[60:90], sk[len(sk)-12:])

	// Shapes from real sessions.
	year := fmt.Sprint(2020 + r.IntN(9))
	p = strings.ToUpper(RS(r, Lower, 1)) + RS(r, Lower, 4) + year + "ChangeMe"
	add("password", "POSTGRES_PASSWORD="+p+"\n", p)
	p = RS(r, Alnum, 5) + year + "ChangeMe!"
	add("url-password", "DATABASE_URL=postgres://app:"+p+"@db.internal:5432/app\n", p)
	p = pw(r)
	add("password", "/bin/bash: line 1: DB_PASSWORD\\="+p+": command not found\n", p)
	bot := fmt.Sprintf("%d:AA%s", 1e9+r.IntN(1e9), RS(r, URLSafe, 33))
	add("telegram-bot-token", "curl -s https://api.telegram.org/bot"+bot+"/sendMessage -d chat_id=42 -d text=done\n", bot)
	p = RS(r, Lower, 6) + RS(r, Upper, 2) + RS(r, Lower, 3)
	add("password", "[database]\nhost = db.internal\nport = 5432\ndb_user = app\ndb_password = "+p+"\n", p)
	gen := base64.StdEncoding.EncodeToString([]byte(RS(r, Alnum, 32)))
	add("generated-secret", "$ openssl rand -base64 32\n"+gen+"\n", gen)
	gen = RS(r, Hex, 64)
	add("generated-secret", "$ python3 -c 'import secrets; print(secrets.token_hex(32))'\n"+gen+"\n", gen)
	return ss
}

// Carried are shapes whose secret is in a later text than the one that
// shows it is one: a command that generates a secret, then its output.
// Each is the texts of a Stream, in order.
func Carried(r *rand.Rand) []struct {
	Texts []string
	Secret
} {
	gen := base64.StdEncoding.EncodeToString([]byte(RS(r, Alnum, 32)))
	hexs := RS(r, Hex, 64)
	return []struct {
		Texts []string
		Secret
	}{
		{[]string{"openssl rand -base64 32", "Generate a session secret", gen + "\n"}, Secret{Kind: "generated-secret", Parts: []string{gen}}},
		{[]string{"head -c 32 /dev/urandom | xxd -p -c 64", hexs}, Secret{Kind: "generated-secret", Parts: []string{hexs}}},
	}
}

// RoundTwoLookalikes are strings the round-two detectors could take for
// secrets, which must stay: hashes of lockfiles, image digests, git
// output, UUIDs, placeholders, commands that take no password.
func RoundTwoLookalikes(r *rand.Rand) []string {
	b := []byte(RS(r, Alnum, 64))
	s1, s256, s512 := sha1.Sum(b), sha256.Sum256(b), sha512.Sum512(b)
	sha := hex.EncodeToString(s1[:])
	d256 := hex.EncodeToString(s256[:])
	uuid := fmt.Sprintf("%s-%s-%s-%s-%s", RS(r, Hex, 8), RS(r, Hex, 4), RS(r, Hex, 4), RS(r, Hex, 4), RS(r, Hex, 12))
	return []string{
		"github.com/pelletier/go-toml/v2 v2.4.3 h1:" + base64.StdEncoding.EncodeToString(s256[:]) + "\n",
		"github.com/pelletier/go-toml/v2 v2.4.3/go.mod h1:" + base64.StdEncoding.EncodeToString(s256[:]) + "\n",
		"[[package]]\nname = \"serde\"\nversion = \"1.0.219\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"" + d256 + "\"\n",
		"left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#" + sha + "\"\n  integrity sha512-" + base64.StdEncoding.EncodeToString(s512[:]) + "\n",
		"requests==2.32.3 \\\n    --hash=sha256:" + d256 + "\n",
		"REPOSITORY   TAG     DIGEST                                                                    IMAGE ID       CREATED\nnginx        1.27    sha256:" + d256 + "   " + d256[:12] + "   2 weeks ago\n",
		"image: ghcr.io/acme/api@sha256:" + d256 + "\n",
		"$ git log --oneline -3\n" + sha[:7] + " fix: rotate the session token\n" + sha[7:14] + " feat: password reset\n" + sha[14:21] + " chore: bump deps\n",
		"$ git rev-parse HEAD\n" + sha + "\n",
		"commit " + sha + "\nMerge: " + sha[:7] + " " + sha[7:14] + "\n",
		"$ uuidgen\n" + uuid + "\n",
		`{"session_id": "` + uuid + `", "request_id": "` + uuid + `"}`,
		"POSTGRES_PASSWORD=changeme\n",
		"POSTGRES_PASSWORD=ChangeMe123\n",
		"DATABASE_URL=postgres://app:changeme@db.internal:5432/app\n",
		"postgres://user:your-password-here@localhost:5432/db\n",
		"DB_PASSWORD=xxxxxxxx\n",
		"api_key: <your-api-key>\n",
		"SECRET_KEY=replace-me-with-a-random-string\n",
		"$ htpasswd -c /etc/nginx/.htpasswd admin\nNew password:\n",
		"$ sqlcmd -S db.internal -E -Q 'SELECT 1'\n",
		"$ ldapsearch -x -b dc=example,dc=org '(uid=alice)'\n",
		"$ keytool -list -keystore trust.jks\n",
		"$ zip -r backup.zip data/\n",
		"$ openssl pkcs12 -in bundle.p12 -passin env:P12_PASS -nokeys\n",
		"$ openssl rsa -in enc.key -passin file:/run/secrets/pass -out plain.key\n",
		"$ echo hello | tr a-z A-Z\n",
		"$ nmcli dev wifi list\n",
		"$ net use Z: \\\\fs01\\share /persistent:yes\n",
		"$ net user\n$ net user bob /delete\n$ net user alice\n",
		"$ sudo chpasswd < users.txt\n$ man chpasswd\n",
		"$ ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -E chassis status\n",
		"$ mosquitto_sub -h broker -t 'sensors/#' -v\n",
		"2026-01-05 10:30:45 INFO started\n10:31:02.118 worker ready\n",
		"main.go:42:17: undefined: tokenSource\n",
		"=== RUN   TestOrderTotal0001\n--- PASS: TestOrderTotal0001 (0.00s)\n    --- PASS: TestOrderTotal0001/case_2 (0.00s)\n--- FAIL: TestRefund0002 (0.01s)\nPASS\n",
		"[server]\nhost = 0.0.0.0\nport = 8080\npassword_file = /run/secrets/db\n",
		"$ openssl rand -hex 16 > key.txt && ls src/\n/home/dev/proj/src/a0y/main_test.exs\n/home/dev/proj/src/b1z/worker2_test.exs\nsrc/c3po/r2d2_helper.exs\n",
		"$ base64 logo.png\n" + Fold(base64.StdEncoding.EncodeToString([]byte(RS(r, B64, 300))), 76) + "\n",
	}
}
