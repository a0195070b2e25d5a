// Package redacttest generates the secret corpus the redactor is tested
// against: synthetic secrets of every kind planted in realistic tool
// outputs, and look-alikes that must stay as they are. It is shared by the
// redactor's own tests and the tests that check what carryover stores,
// exports and restores.
package redacttest

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Alphabets of the synthetic secrets.
const (
	Lower   = "abcdefghijklmnopqrstuvwxyz"
	Upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Digits  = "0123456789"
	Alnum   = Lower + Upper + Digits
	Hex     = "0123456789abcdef"
	URLSafe = Alnum + "_-"
	B64     = Alnum + "+/"
)

// RS returns n random bytes of chars, letters and digits mixed.
func RS(r *rand.Rand, chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	// Real tokens of these alphabets mix letters and digits; so do ours.
	var digits, letters []byte
	for i := 0; i < len(chars); i++ {
		if strings.IndexByte(Digits, chars[i]) >= 0 {
			digits = append(digits, chars[i])
		} else if strings.IndexByte(Lower+Upper, chars[i]) >= 0 {
			letters = append(letters, chars[i])
		}
	}
	if n >= 8 && len(digits) > 0 && len(letters) > 0 {
		b[r.IntN(n/2)] = digits[r.IntN(len(digits))]
		b[n/2+r.IntN(n/2)] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// Secret is one planted secret: the text to plant, the kind its label must
// name, and the parts that must be gone afterwards.
type Secret struct {
	Kind  string
	Text  string
	Parts []string
	// Inline: the secret is recognised by its own shape, so it can be planted
	// in any of the generic Contexts; otherwise Text is a whole context.
	Inline bool
}

func tokenSecret(kind, text string) Secret {
	return Secret{Kind: kind, Text: text, Parts: []string{text}, Inline: true}
}

func pemKey(r *rand.Rand, label string, escaped bool) (string, string) {
	var b strings.Builder
	nl := "\n"
	if escaped {
		nl = `\n`
	}
	body := RS(r, B64, 64)
	fmt.Fprintf(&b, "-----BEGIN %s-----%s", label, nl)
	for range 6 {
		b.WriteString(RS(r, B64, 64) + nl)
	}
	b.WriteString(body + nl)
	b.WriteString(RS(r, B64, 20) + "==" + nl)
	fmt.Fprintf(&b, "-----END %s-----", label)
	return b.String(), body
}

// JWT returns a signed token with JSON claims.
func JWT(r *rand.Rand) string {
	enc := base64.RawURLEncoding
	hdr := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	payload := enc.EncodeToString(fmt.Appendf(nil, `{"sub":"%d","name":"%s","iat":%d}`, r.IntN(1e9), RS(r, Lower, 8), 1700000000+r.IntN(1e7)))
	sig := enc.EncodeToString([]byte(RS(r, Alnum, 32)))
	return hdr + "." + payload + "." + sig
}

// Secrets generates one secret of every kind (several of some).
func Secrets(r *rand.Rand) []Secret {
	ss := []Secret{
		tokenSecret("aws-access-key-id", "AKIA"+RS(r, Upper+"234567", 15)+"7"),
		tokenSecret("aws-access-key-id", "ASIA"+RS(r, Upper+"234567", 15)+"2"),
		tokenSecret("google-api-key", "AIza"+RS(r, URLSafe, 35)),
		tokenSecret("google-oauth-token", "ya29."+RS(r, URLSafe, 120)),
		tokenSecret("google-oauth-client-secret", "GOCSPX-"+RS(r, URLSafe, 28)),
		tokenSecret("anthropic-api-key", "sk-ant-api03-"+RS(r, URLSafe, 93)+"AA"),
		tokenSecret("anthropic-api-key", "sk-ant-admin01-"+RS(r, URLSafe, 93)+"AA"),
		tokenSecret("openai-api-key", "sk-proj-"+RS(r, URLSafe, 156)),
		tokenSecret("openai-api-key", "sk-svcacct-"+RS(r, URLSafe, 100)),
		tokenSecret("openai-api-key", "sk-"+RS(r, Alnum, 20)+"T3BlbkFJ"+RS(r, Alnum, 20)),
		tokenSecret("github-pat", "ghp_"+RS(r, Alnum, 36)),
		tokenSecret("github-oauth-token", "gho_"+RS(r, Alnum, 36)),
		tokenSecret("github-app-token", "ghu_"+RS(r, Alnum, 36)),
		tokenSecret("github-app-token", "ghs_"+RS(r, Alnum, 36)),
		tokenSecret("github-refresh-token", "ghr_"+RS(r, Alnum, 76)),
		tokenSecret("github-fine-grained-pat", "github_pat_"+RS(r, Alnum, 22)+"_"+RS(r, Alnum, 59)),
		tokenSecret("gitlab-token", "glpat-"+RS(r, URLSafe, 20)),
		tokenSecret("gitlab-token", "glrt-"+RS(r, URLSafe, 20)),
		tokenSecret("slack-token", fmt.Sprintf("xoxb-%d-%d-%s", 1e11+r.IntN(1e11), 1e12+r.IntN(1e12), RS(r, Alnum, 24))),
		tokenSecret("slack-token", fmt.Sprintf("xoxp-%d-%d-%d-%s", 1e11+r.IntN(1e11), 1e11+r.IntN(1e11), 1e12+r.IntN(1e12), RS(r, Hex, 32))),
		tokenSecret("slack-token", "xapp-1-A"+RS(r, Upper+Digits, 10)+"-"+RS(r, Digits, 13)+"-"+RS(r, Hex, 64)),
		tokenSecret("stripe-secret-key", "sk_live_"+RS(r, Alnum, 99)),
		tokenSecret("stripe-secret-key", "rk_live_"+RS(r, Alnum, 99)),
		tokenSecret("stripe-secret-key", "sk_test_"+RS(r, Alnum, 24)),
		tokenSecret("stripe-webhook-secret", "whsec_"+RS(r, Alnum, 32)),
		tokenSecret("twilio-api-key", "SK"+RS(r, Hex, 32)),
		tokenSecret("sendgrid-api-key", "SG."+RS(r, URLSafe, 22)+"."+RS(r, URLSafe, 43)),
		tokenSecret("npm-token", "npm_"+RS(r, Alnum, 36)),
		tokenSecret("pypi-token", "pypi-AgEIcHlwaS5vcmc"+RS(r, URLSafe, 150)),
		tokenSecret("huggingface-token", "hf_"+RS(r, Lower+Upper, 34)),
		tokenSecret("dockerhub-token", "dckr_pat_"+RS(r, URLSafe, 27)),
		tokenSecret("mailgun-api-key", "key-"+RS(r, Hex, 32)),
		tokenSecret("square-token", "sq0atp-"+RS(r, URLSafe, 22)),
		tokenSecret("square-token", "sq0csp-"+RS(r, URLSafe, 43)),
		tokenSecret("square-token", "EAAA"+RS(r, URLSafe, 60)),
		tokenSecret("shopify-token", "shpat_"+RS(r, Hex, 32)),
		tokenSecret("shopify-token", "shpss_"+RS(r, Hex, 32)),
		tokenSecret("digitalocean-token", "dop_v1_"+RS(r, Hex, 64)),
		tokenSecret("heroku-api-key", "HRKU-AA"+RS(r, URLSafe, 58)),
		tokenSecret("databricks-token", "dapi"+RS(r, Hex, 32)),
		tokenSecret("atlassian-api-token", "ATATT3xFfGF0"+RS(r, URLSafe, 170)+"="+RS(r, Upper+Digits, 8)),
		tokenSecret("linear-api-key", "lin_api_"+RS(r, Alnum, 40)),
		tokenSecret("notion-token", "ntn_"+RS(r, Digits, 11)+RS(r, Alnum, 35)),
		tokenSecret("notion-token", "secret_"+RS(r, Alnum, 43)),
		tokenSecret("vault-token", "hvs."+RS(r, URLSafe, 90)),
		tokenSecret("grafana-token", "glsa_"+RS(r, Alnum, 32)+"_"+RS(r, Hex, 8)),
		tokenSecret("newrelic-key", "NRAK-"+RS(r, Upper+Digits, 27)),
		tokenSecret("sentry-token", "sntrys_"+RS(r, URLSafe, 120)),
		tokenSecret("postman-api-key", "PMAK-"+RS(r, Hex, 24)+"-"+RS(r, Hex, 34)),
		tokenSecret("doppler-token", "dp.pt."+RS(r, Alnum, 43)),
		tokenSecret("pulumi-token", "pul-"+RS(r, Hex, 40)),
		tokenSecret("supabase-token", "sbp_"+RS(r, Hex, 40)),
		tokenSecret("groq-api-key", "gsk_"+RS(r, Alnum, 52)),
		tokenSecret("replicate-token", "r8_"+RS(r, Alnum, 37)),
		tokenSecret("age-secret-key", "AGE-SECRET-KEY-1"+RS(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
		tokenSecret("telegram-bot-token", fmt.Sprintf("%d:AA%s", 1e9+r.IntN(1e9), RS(r, URLSafe, 33))),
		tokenSecret("jwt", JWT(r)),
	}

	// Shapes that need their context.
	add := func(kind, text string, parts ...string) {
		ss = append(ss, Secret{Kind: kind, Text: text, Parts: parts})
	}
	awsSecret := RS(r, Alnum+"/+", 40)
	add("aws-secret-access-key", "[default]\naws_access_key_id = AKIA"+RS(r, Upper, 14)+"27\naws_secret_access_key = "+awsSecret+"\nregion = eu-west-1", awsSecret)
	awsSecret2 := RS(r, Alnum+"/+", 40)
	add("aws-secret-access-key", `{"AccessKey": {"UserName": "ci", "AccessKeyId": "AKIA`+RS(r, Upper, 14)+`42", "Status": "Active", "SecretAccessKey": "`+awsSecret2+`"}}`, awsSecret2)
	pem, body := pemKey(r, "RSA PRIVATE KEY", false)
	add("private-key", "$ cat ~/.ssh/deploy_rsa\n"+pem+"\n$ ", body)
	pem, body = pemKey(r, "OPENSSH PRIVATE KEY", false)
	add("private-key", pem, body)
	pem, body = pemKey(r, "EC PRIVATE KEY", false)
	add("private-key", "key: |\n"+pem, body)
	pem, body = pemKey(r, "PRIVATE KEY", true)
	gcpID := RS(r, Hex, 40)
	add("gcp-service-account-key", `{"type": "service_account", "project_id": "acme-prod", "private_key_id": "`+gcpID+`", "private_key": "`+pem+`\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}`, body)
	pem, body = pemKey(r, "PRIVATE KEY", false)
	add("private-key", "output truncated:\n"+pem[:len(pem)/2]+"… [42 more lines]", body[:40])
	azKey := RS(r, B64, 86) + "=="
	add("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey="+azKey+";EndpointSuffix=core.windows.net", azKey)
	sbKey := RS(r, B64, 43) + "="
	add("azure-service-bus-key", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="+sbKey, sbKey)
	sig := RS(r, Alnum, 40) + "%3D"
	add("azure-sas-signature", "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&sig="+sig, sig)
	dbPass := RS(r, Alnum, 16)
	add("url-password", "DATABASE_URL=postgres://app_user:"+dbPass+"@db.internal:5432/app?sslmode=require", dbPass)
	redisPass := RS(r, Alnum+"!*", 20)
	add("url-password", "Connecting to redis://:"+redisPass+"@cache.internal:6379/0 ...", redisPass)
	gitPass := RS(r, Alnum, 24)
	add("url-password", "$ git remote -v\norigin\thttps://deploy:"+gitPass+"@git.example.org/team/app.git (fetch)\norigin\thttps://deploy:"+gitPass+"@git.example.org/team/app.git (push)", gitPass)
	mysqlPass := RS(r, Alnum, 14)
	add("url-password", `dsn := "app:`+mysqlPass+`@tcp(127.0.0.1:3306)/shop?parseTime=true"`, mysqlPass)
	bearer := RS(r, Alnum, 40)
	add("bearer-token", "* Connected to api.example.com (10.0.0.7) port 443\n> GET /v1/items HTTP/2\n> Host: api.example.com\n> Authorization: Bearer "+bearer+"\n> User-Agent: curl/8.5.0\n< HTTP/2 200", bearer)
	basicCred := base64.StdEncoding.EncodeToString([]byte("admin:" + RS(r, Alnum, 12)))
	add("basic-auth", "> Authorization: Basic "+basicCred+"\n> Accept: */*", basicCred)
	apiTok := RS(r, Alnum, 32)
	add("authorization-header", `curl -H "Authorization: Token `+apiTok+`" https://api.example.com/me`, apiTok)
	dockerPass := RS(r, Alnum, 12) + "!"
	add("password", "$ docker login -u ci-bot -p "+dockerPass+" registry.example.com\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded", dockerPass)
	envPass := RS(r, Alnum+"#!%", 18)
	add("password", "$ env | sort\nHOME=/home/dev\nPATH=/usr/bin:/bin\nPOSTGRES_PASSWORD="+envPass+"\nSHELL=/bin/bash", envPass)
	yamlPass := RS(r, Alnum, 20)
	add("password", "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: "+yamlPass+"\n", yamlPass)
	jsonSecret := RS(r, Alnum, 48)
	add("secret", `{"oauth": {"client_id": "web-app", "client_secret": "`+jsonSecret+`", "redirect_uri": "https://app.example.com/cb"}}`, jsonSecret)
	escSecret := RS(r, Alnum, 32)
	add("secret", `{"type":"tool_result","content":"{\"apiKey\": \"`+escSecret+`\", \"region\": \"eu\"}"}`, escSecret)
	goPass := RS(r, Alnum, 14) + "$9"
	add("password", `	db, err := sql.Open("postgres", cfg.DSN) // dbPassword := "`+goPass+`"`, goPass)
	tokenVal := RS(r, Hex, 40)
	add("secret", "export CLOUDFLARE_API_TOKEN="+tokenVal+"\nexport CF_ZONE=acme.dev", tokenVal)
	flagTok := RS(r, Alnum, 30)
	add("secret", "$ deployctl push --api-token "+flagTok+" --env prod\nPushed 3 services.", flagTok)
	npmrc := RS(r, Alnum, 36)
	add("secret", "//registry.example.com/:_authToken="+npmrc+"\nalways-auth=true", npmrc)
	twilioTok := RS(r, Hex, 32)
	add("secret", "TWILIO_ACCOUNT_SID=AC"+RS(r, Hex, 32)+"\nTWILIO_AUTH_TOKEN="+twilioTok, twilioTok)
	trace := RS(r, Alnum, 24)
	add("secret", "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    client = Client(api_key='"+trace+"')\nValueError: invalid credentials", trace)
	hook := RS(r, Alnum, 24)
	add("slack-webhook", "SLACK_WEBHOOK=https://hooks.slack.com/services/T0"+RS(r, Upper+Digits, 8)+"/B0"+RS(r, Upper+Digits, 8)+"/"+hook, hook)
	disc := RS(r, URLSafe, 68)
	add("discord-webhook", "posting to https://discord.com/api/webhooks/"+RS(r, Digits, 18)+"/"+disc, disc)
	return append(ss, probeSecrets(r)...)
}

// PEMLines returns the lines of a private key block: BEGIN, the body, END.
func PEMLines(r *rand.Rand, label string) []string {
	ls := []string{"-----BEGIN " + label + "-----"}
	for range 12 {
		ls = append(ls, RS(r, B64, 64))
	}
	ls = append(ls, RS(r, B64, 22)+"==", "-----END "+label+"-----")
	return ls
}

// Numbered prints lines as cat -n (tab) or Claude Code's Read tool (an
// arrow) do, the first numbered from.
func Numbered(ls []string, from int, sep string) string {
	var b strings.Builder
	for k, l := range ls {
		fmt.Fprintf(&b, "%6d%s%s\n", from+k, sep, l)
	}
	return b.String()
}

// ReadReminder is what Claude Code appends to a Read result.
const ReadReminder = "\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n"

// probeSecrets are the shapes a probe once found stored verbatim: keys
// printed with line numbers or cut in two, passwords on command lines, in
// .netrc and short ones, URL passwords with / # < >, dotted passphrases,
// session cookies, values with punctuation, JWTs whose payload is not
// JSON.
func probeSecrets(r *rand.Rand) []Secret {
	var ss []Secret
	add := func(kind, text string, parts ...string) {
		ss = append(ss, Secret{Kind: kind, Text: text, Parts: parts})
	}
	short := func() string { return RS(r, Lower, 5) + RS(r, Digits, 2) } // hunter2-like
	for _, sep := range []string{"\t", "→"} {
		ls := PEMLines(r, "RSA PRIVATE KEY")
		add("private-key", Numbered(ls, 1, sep)+ReadReminder, ls[1:len(ls)-1]...)
		ls = PEMLines(r, "OPENSSH PRIVATE KEY")
		add("private-key", Numbered(ls[:7], 1, sep)+ReadReminder, ls[1:7]...) // a Read with limit: 7
		ls = PEMLines(r, "PRIVATE KEY")
		add("private-key", Numbered(ls[7:], 8, sep)+ReadReminder, ls[7:len(ls)-1]...) // the rest, offset 8
	}
	ls := PEMLines(r, "EC PRIVATE KEY")
	add("private-key", strings.Join(ls[5:], "\n")+"\n$ ", ls[5:len(ls)-1]...) // the tail of a cut cat
	ls = PEMLines(r, "RSA PRIVATE KEY")
	cut := 40
	add("private-key", ls[6][cut:]+"\n"+strings.Join(ls[7:], "\n"), append([]string{ls[6][cut:]}, ls[7:len(ls)-1]...)...) // cut mid-line

	user := RS(r, Lower, 6)
	p := short()
	add("password", "$ curl -u "+user+":"+p+" https://api.example.com/v1/me", p)
	p = short() + "!"
	add("password", "curl -sS --user '"+user+":"+p+"' -X POST https://ci.example.com/job/build", p)
	p = short()
	add("password", "curl -fsSu "+user+":"+p+" https://repo.example.com/simple/", p)
	p = short()
	add("password", "curl -x http://proxy:3128 -U "+user+":"+p+" https://example.com", p)
	p = short()
	add("password", "$ mysql -h db.internal -u root -p"+p+" shop -e 'select count(*) from orders'", p)
	p = RS(r, Lower, 4) + "1"
	add("password", "mysql --user=app --password="+p+" --host=127.0.0.1 app < schema.sql", p)
	p = short()
	add("password", "mysqldump -uroot -p'"+p+"' --single-transaction shop > shop.sql", p)
	p = short()
	add("password", "mariadb -u admin -p"+p+" -e 'SHOW DATABASES'", p)
	p = short()
	add("password", "sshpass -p "+p+" ssh -o StrictHostKeyChecking=no deploy@10.0.0.5 uptime", p)
	p = short()
	add("password", "sshpass -p'"+p+"' scp build.tgz deploy@10.0.0.5:/srv/", p)
	p = short()
	add("password", "$ redis-cli -h cache.internal -p 6379 -a "+p+" ping\nPONG", p)
	p = short()
	add("password", "machine api.heroku.com login "+user+"@example.com password "+p, p)
	p = RS(r, Hex, 12)
	add("password", "$ cat ~/.netrc\nmachine git.example.com\n  login "+user+"\n  password "+p+"\n", p)
	p = short()
	add("password", "$ PGPASSWORD="+p+" psql -h db.internal -U app -c '\\dt'", p)
	p = RS(r, Lower, 3) + RS(r, Digits, 1)
	add("password", "export MYSQL_PWD="+p+"\nmysql -u root", p)
	p = short()
	add("password", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: "+p+"\n", p)
	p = short()
	add("password", "./manage --db-host=db --password="+p+" migrate", p)
	p = RS(r, Alnum, 6)
	tail := RS(r, Alnum, 4) + "7"
	add("url-password", "DATABASE_URL=postgres://app:"+p+"#a/s<"+tail+">@db.internal:5432/app", p, tail)
	p, tail = RS(r, Alnum, 6), RS(r, Alnum, 5)+"3"
	add("url-password", "mongodb://admin:"+p+"/?"+tail+"@mongo-0.internal:27017/admin?authSource=admin", p, tail)
	p, tail = RS(r, Alnum, 5), RS(r, Alnum, 6)+"9"
	add("url-password", "git clone https://bot:"+p+"@"+tail+"@git.example.org/team/app.git", p, tail)
	words := []string{RS(r, Lower, 7), RS(r, Lower, 5), RS(r, Lower, 7), RS(r, Lower, 6)}
	p = strings.Join(words, ".")
	add("password", "db:\n  user: app\n  password: "+p+"\n", p, words[1]+"."+words[2])
	p = strings.Join(words[:3], ".")
	add("password", "export BORG_PASSPHRASE="+p, p)
	sess := RS(r, Hex, 24)
	add("session-cookie", "> GET /admin HTTP/1.1\n> Host: app.example.com\n> Cookie: session="+sess+"; theme=dark\n", sess)
	sid := RS(r, Alnum, 20)
	add("session-cookie", "< HTTP/1.1 302 Found\n< Set-Cookie: sid="+sid+"; Path=/; HttpOnly; SameSite=Lax\n", sid)
	sid = RS(r, Alnum, 26)
	add("session-cookie", "curl -b 'laravel_session="+sid+"' https://app.example.com/dashboard", sid)
	sid, csrf := RS(r, Alnum, 32), RS(r, Alnum, 32)
	add("session-cookie", `headers = {"Cookie": "sessionid=`+sid+`; csrftoken=`+csrf+`", "Accept": "text/html"}`, sid, csrf)
	sid = RS(r, Upper+Digits, 32)
	add("session-cookie", "curl --cookie \"JSESSIONID="+sid+"\" https://intranet.example.com/", sid)
	p, tail = RS(r, Alnum, 10)+"2", RS(r, Alnum, 4)+"5"
	add("password", "DB_PASSWORD="+p+"&"+tail+"\nDB_HOST=db", p, tail)
	p, tail = RS(r, Alnum, 6)+"1", RS(r, Alnum, 3)+"8"
	add("password", `POSTGRES_PASSWORD="`+p+`<t>#`+tail+`/x"`, p, tail)
	p, tail = RS(r, Alnum, 8)+"4", RS(r, Alnum, 4)+"6"
	add("password", "https://api.example.com/login?user=bob&password="+p+";|"+tail+"&next=/", p, tail)
	enc := base64.RawURLEncoding
	payload := enc.EncodeToString([]byte(RS(r, Alnum, 40)))
	tok := enc.EncodeToString([]byte(`{"alg":"HS256"}`)) + "." + payload + "." + enc.EncodeToString([]byte(RS(r, Alnum, 32)))
	add("jwt", "signed: "+tok+"\n", payload)
	payload = enc.EncodeToString(fmt.Appendf(nil, `{"sub":"%s"}`, RS(r, Alnum, 12)))
	add("jwt", "unsigned token "+enc.EncodeToString([]byte(`{"alg":"none"}`))+"."+payload+". accepted", payload)
	parts := []string{RS(r, URLSafe, 40), RS(r, URLSafe, 16), RS(r, URLSafe, 60), RS(r, URLSafe, 22)}
	add("jwt", "JWE: "+enc.EncodeToString([]byte(`{"alg":"RSA-OAEP","enc":"A256GCM"}`))+"."+strings.Join(parts, "."), parts...)
	p = RS(r, Lower, 3) + RS(r, Digits, 3)
	add("secret", "export API_TOKEN="+p+"\n", p)
	return ss
}

// Contexts are realistic tool outputs a token can appear in.
var Contexts = []string{
	"%s",
	"$ env\nHOME=/home/dev\nAPI_CREDENTIAL=%s\nLANG=C.UTF-8",
	"export SERVICE_VALUE='%s'",
	`{"service": {"endpoint": "https://api.example.com", "value": "%s", "retries": 3}}`,
	"Error: request to https://api.example.com/v2/charges failed (401) using %s\n    at Client.request (node_modules/sdk/lib/client.js:118:15)\n    at async main (deploy.js:42:3)",
	"  value: %s\n  region: us-east-1",
	"$ curl -sS -H 'X-Service: %s' https://api.example.com/v1/ping\n{\"ok\":true}",
	"The key you pasted (%s) is now in the shell history.",
	`{"type":"tool_use","name":"Bash","input":{"command":"echo \"%s\" | tool login --with-token"}}`,
}

// Lookalikes generates strings that resemble secrets and must stay as they
// are.
func Lookalikes(r *rand.Rand) []string {
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	for range 5 {
		b := []byte(RS(r, Alnum, 64))
		s1 := sha1.Sum(b)
		s256 := sha256.Sum256(b)
		s512 := sha512.Sum512(b)
		commit := hex.EncodeToString(s1[:])
		uuid := fmt.Sprintf("%s-%s-%s-%s-%s", RS(r, Hex, 8), RS(r, Hex, 4), RS(r, Hex, 4), RS(r, Hex, 4), RS(r, Hex, 12))
		img := make([]byte, 600)
		for i := range img {
			img[i] = byte(r.IntN(256))
		}
		add(
			commit,
			"commit "+commit+"\nAuthor: Dev <dev@example.com>\nDate:   Mon Mar 3 10:00:00 2026 +0100",
			commit[:7]+" fix: handle empty token list\n"+hex.EncodeToString(s1[:])[:7]+" feat: add password reset flow",
			"sha256:"+hex.EncodeToString(s256[:]),
			"docker pull ghcr.io/acme/app@sha256:"+hex.EncodeToString(s256[:]),
			`"integrity": "sha512-`+base64.StdEncoding.EncodeToString(s512[:])+`",`,
			`"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": "sha1-`+base64.StdEncoding.EncodeToString(s1[:])+`"`,
			uuid,
			`{"sessionId": "`+uuid+`", "requestId": "req_`+RS(r, Alnum, 24)+`", "tool_use_id": "toolu_01`+RS(r, Alnum, 22)+`"}`,
			`{"id": "msg_01`+RS(r, Alnum, 22)+`", "type": "message", "usage": {"input_tokens": 1234, "cache_read_input_tokens": 56789, "output_tokens": 321}}`,
			"data:image/png;base64,"+base64.StdEncoding.EncodeToString(img),
			`{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "`+base64.StdEncoding.EncodeToString(img)+`"}}`,
			hex.EncodeToString(s512[:]),
			"etag: \""+hex.EncodeToString(s256[:16])+"\"",
			"GIT_COMMIT="+commit,
			"checksum = "+hex.EncodeToString(s256[:]),
			`"secret_name": "prod/db/credentials", "secret_arn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-`+RS(r, Alnum, 6)+`"`,
			"session_id="+uuid,
			"token_count: 4096\nmax_tokens = 8192",
			"eyJ"+RS(r, Alnum, 20)+"."+RS(r, Alnum, 30)+"."+RS(r, Alnum, 20),
			base64.RawURLEncoding.EncodeToString([]byte(`{"kind":"cursor","page":`+fmt.Sprint(r.IntN(100))+`}`))+"."+base64.RawURLEncoding.EncodeToString([]byte(`{"after":"`+RS(r, Alnum, 12)+`"}`))+"."+RS(r, URLSafe, 16),
			"v1.2.3-rc.1+build."+RS(r, Hex, 7),
			"node_modules/.pnpm/@babel+core@7.24.0_"+RS(r, Lower, 10)+"/node_modules",
		)
		id := RS(r, Lower, 6)
		add(
			"func (c *Client) Token() (string, error) { return c.tokenSource.Token() }",
			"const "+id+"Token = await getAccessToken(clientId, scopes);",
			"password := os.Getenv(\"DB_PASSWORD\")",
			"self.api_key = api_key",
			"if password == confirmPassword {",
			"secret := []byte(cfg.SigningSecret)",
			"const token = req.headers.authorization?.split(' ')[1];",
			`headers = {"Authorization": f"Bearer {token}"}`,
			"interface Config { apiKey: string; password?: string }",
			"def login(username: str, password: str) -> Token:",
			"let "+id+"_secret_key_base = config.secret_key_base;",
			"passwordHash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)",
			"tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
			"keyboard_layout: us-intl",
			"disk-"+RS(r, Lower+Digits, 40),
			"task-"+RS(r, Lower+Digits, 40),
		)
	}
	add(
		"password=${PASSWORD}",
		"DB_PASSWORD=$DB_PASSWORD",
		"export GITHUB_TOKEN=<your-token>",
		"api_key: <YOUR_API_KEY>",
		`password: "changeme"`,
		"PASSWORD=changeme123",
		`"password": "********"`,
		"token: xxxxxxxxxxxxxxxxxxxxxxxx",
		"secret: {{ .Values.secret }}",
		"GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer <token>",
		"-H \"Authorization: Bearer ${API_TOKEN}\"",
		"postgres://user:password@localhost:5432/db",
		"postgres://user:${DB_PASS}@localhost:5432/db",
		"https://user@github.com/acme/app.git",
		"git@github.com:acme/app.git",
		"https://example.com:8443/path?next=/login",
		"api_key=your_api_key_here",
		"SECRET_KEY=replace-me-with-a-random-string",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"password_file: /run/secrets/db_password",
		"token_path = ~/.config/acme/token.json",
		"secret: prod-db-credentials",
		"token_type: Bearer",
		"auth: oauth2",
		"a Bearer token is sent in the Authorization header",
		"Basic authentication is disabled",
		"the password must be at least 12 characters",
		"passthrough: true",
		"bypass_cache=1",
		"author: Jane Doe",
	)
	// Look-alikes of the probe's shapes.
	add(
		"password = self.password",
		"    password: str = Field(..., min_length=12)",
		"password: Optional[str] = None",
		"$ mysql -u root -p shop\nEnter password:",
		"mysql -h 127.0.0.1 -P 3306 -u app --password shop",
		"sshpass -f ~/.config/deploy.pass ssh deploy@10.0.0.5",
		`curl -u "$API_USER:$API_PASS" https://api.example.com/v1/me`,
		"curl -u admin https://api.example.com/v1/me",
		"docker run --rm -u 1000:1000 -v $PWD:/src golang:1.26 go build ./...",
		"> Cookie: theme=dark; lang=en-US",
		"< Set-Cookie: lang=en; Path=/; Max-Age=31536000",
		"machine github.com login octocat password $GITHUB_TOKEN",
		"Put the credentials in ~/.netrc (a machine line, then login and password) and chmod it 600.",
		"postgres://user:<password>@localhost:5432/db",
		"https://example.com:8443/login?next=/home&email=bob@example.com",
		"password: process.env.DB_PASSWORD",
		"redis-cli -h cache.internal -p 6379 ping",
		"PGPASSWORD=$PGPASSWORD psql -h db -U app",
		"echo \"$CR_PAT\" | docker login ghcr.io -u bot --password-stdin registry.example.com",
		`return {"password": password, "user": user}`,
		"if err := db.Ping(); err != nil { return fmt.Errorf(\"ping: %w\", err) }",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"+RS(r, B64, 60)+"\n-----END PUBLIC KEY-----",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  build/app.tgz",
		`if strings.HasSuffix(block, "-----END RSA PRIVATE KEY-----") {`,
		"password: correct.horse (the example in the docs)",
		"host: db.internal.example.com",
		"token = tokens[0]",
		"secret = base64.b64encode(data)",
	)
	return out
}

// PlantAll builds the secrets corpus: every inline secret in every context,
// and every shaped secret as it is.
func PlantAll(r *rand.Rand) (texts []string, want []Secret) {
	for _, s := range Secrets(r) {
		if !s.Inline {
			texts, want = append(texts, s.Text), append(want, s)
			continue
		}
		for _, c := range Contexts {
			texts, want = append(texts, fmt.Sprintf(c, s.Text)), append(want, s)
		}
	}
	return texts, want
}

// JSONLine wraps a text the way a transcript stores a tool result.
func JSONLine(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": text}}}})
	return string(b)
}
