package redact

import (
	"slices"
	"strings"
)

// Passwords given on the command lines of tools other than the ones
// matchCommand reads: one table, a program and the flags of it that take
// a password, and the few programs that take one as an argument.

// cmdFlags are, per program, its flags whose value is a password: "-P"
// takes the next word, "--password" also "--password=value", and a flag
// ending in ":" (xfreerdp's /p:) or "+" (7z's -p) its attached value.
// A flag means something else to another program (-P is a port to ssh,
// -p a port to many), which is why each program has its own.
var cmdFlags = map[string][]string{
	"sqlcmd": {"-P"}, "bcp": {"-P"}, "osql": {"-P"}, "isql": {"-P"},
	"ldapsearch": {"-w"}, "ldapmodify": {"-w"}, "ldapadd": {"-w"}, "ldapdelete": {"-w"}, "ldapwhoami": {"-w"},
	"ldappasswd": {"-w", "-s", "-a"}, "ldapmodrdn": {"-w"}, "ldapcompare": {"-w"}, "ldapexop": {"-w"},
	"keytool":   {"-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-new"},
	"jarsigner": {"-storepass", "-keypass"},
	"zip":       {"-P", "--password"}, "unzip": {"-P"}, "zipcloak": {"-P"}, "7z": {"-p+"}, "7za": {"-p+"},
	"mosquitto_pub": {"-P", "--pw"}, "mosquitto_sub": {"-P", "--pw"}, "mosquitto_rr": {"-P", "--pw"},
	"ipmitool": {"-P"},
	"openssl":  {"-passin", "-passout", "-pass", "-password", "-k", "-kfile"},
	"wget":     {"--password", "--http-password", "--ftp-password", "--proxy-password"},
	"svn":      {"--password"}, "gpg": {"--passphrase"}, "gpg2": {"--passphrase"},
	"mongo": {"-p", "--password"}, "mongosh": {"-p", "--password"}, "mongodump": {"-p", "--password"},
	"mongorestore": {"-p", "--password"}, "mongoexport": {"-p", "--password"}, "mongoimport": {"-p", "--password"},
	"psexec": {"-p"}, "rdesktop": {"-p"}, "xfreerdp": {"/p:"}, "wfreerdp": {"/p:"},
	"smbclient": {"--password"}, "smbmap": {"-p"}, "crackmapexec": {"-p"}, "nxc": {"-p"}, "evil-winrm": {"-p"},
	"az": {"-p", "--password"}, "podman": {"-p", "--password"}, "nerdctl": {"-p", "--password"}, "helm": {"-p", "--password"},
	"oras": {"-p", "--password"}, "cf": {"-p"}, "influx": {"-p", "--password"}, "vncpasswd": {"-f"},
	"hydra": {"-p"}, "pure-pw": {"-p"}, "usermod": {"-p", "--password"}, "useradd": {"-p", "--password"},
}

// cmdArgs are the programs that take a password as an argument, or as
// the part of one after a separator (smbclient -U 'DOM\user%pass').
var cmdArgs = []string{"htpasswd", "net", "nmcli", "sqlplus", "lftp", "skopeo", "buildah", "rabbitmqctl",
	"rpcclient", "smbcacls", "smbget", "smbtree"}

// cmdRules returns the rules of the command-line family. A rule per
// program would trigger on common letter pairs ("ne" of net, "ht" of
// htpasswd), slowing every text; the table's programs are found from
// their flags instead (a space and a dash or a slash, rare outside
// commands), and only programs that take no flag have rules of their own,
// on rare pairs.
func cmdRules() []*rule {
	rs := []*rule{
		{prefix: " -", kind: "password", prio: prioShape, match: matchCmdFlag},
		{prefix: "\t-", kind: "password", prio: prioShape, match: matchCmdFlag},
		{prefix: " /p:", kind: "password", prio: prioShape, match: matchCmdFlag},
		{prefix: " /user:", kind: "password", prio: prioShape, match: matchCmdFlag},
		{prefix: " /USER:", kind: "password", prio: prioShape, match: matchCmdFlag},
		{prefix: "nmcli", kind: "password", prio: prioShape, match: matchCmdName},
		{prefix: "sqlplus", kind: "password", prio: prioShape, match: matchCmdName},
		{prefix: "mqctl", kind: "password", prio: prioShape, match: matchCmdName}, // rabbitmqctl
		{prefix: "chpasswd", kind: "password", prio: prioShape, match: matchChpasswd},
		{prefix: "net user ", fold: true, kind: "password", prio: prioShape, match: matchCmdName},
	}
	// .pgpass lines, at their port: PostgreSQL's and PgBouncer's, or any.
	for _, p := range []string{":5432:", ":5433:", ":5434:", ":6432:", ":*:"} {
		rs = append(rs, &rule{prefix: p, kind: "password", prio: prioShape, match: matchPgpass})
	}
	for _, name := range []string{"_superuser(", "_user("} {
		rs = append(rs, &rule{prefix: name, kind: "password", prio: prioShape, match: matchCreateUser})
	}
	return rs
}

// commandStart returns where the shell command holding i starts: after a
// line break, ; | & ` or ( before it, or the quote that opens a JSON
// string ("command":"...). What it scans is remembered, so that the flags
// of a long command cost one scan.
func (sc *scan) commandStart(i int) int {
	s := sc.s
	lo := max(0, i-maxCommand)
	k := i
	for k > lo {
		if sc.cmdAt > 0 && i > sc.cmdAt && k <= sc.cmdAt {
			return sc.cmdStart
		}
		c := s[k-1]
		if c == '\n' || c == ';' || c == '|' || c == '&' || c == '`' || c == '(' ||
			c == '"' && k >= 2 && (s[k-2] == ':' || s[k-2] == '[' || s[k-2] == ',') || c == 'n' && k >= 2 && s[k-2] == '\\' {
			break
		}
		k--
	}
	sc.work += i - k
	sc.cmdStart, sc.cmdAt = k, i
	return k
}

// programAt returns the program of the command starting at k (past a
// prompt, variable assignments and sudo with its flags), lower-cased and
// without its directory or .exe, where its name starts, and whether sudo
// runs it.
func programAt(s string, k, end int) (name string, pos int, sudo bool) {
	for n := 0; n < 16 && k < end; n++ {
		for k < end && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		e := k
		for e < end && s[e] != ' ' && s[e] != '\t' && s[e] != '\n' && !(s[e] == '\\' && e+1 < end && s[e+1] == 'n') {
			e++
		}
		w := s[k:e]
		switch {
		case w == "$" || w == "#" || w == ">":
		case strings.IndexByte(w, '=') > 0 && !strings.HasPrefix(w, "-"): // FOO=bar cmd
		case w == "sudo" || w == "time" || w == "exec" || w == "nohup" || w == "command":
			sudo = sudo || w == "sudo"
			if w == "sudo" {
				pos = k
				name = w
			}
		case sudo && strings.HasPrefix(w, "-"):
			if w == "-u" || w == "-g" || w == "-U" {
				for e < end && s[e] == ' ' {
					e++
				}
				for e < end && s[e] != ' ' {
					e++
				}
			}
		default:
			if sl := strings.LastIndexAny(w, "/\\"); sl >= 0 {
				k += sl + 1
				w = w[sl+1:]
			}
			return programName(w), k, sudo
		}
		k = e
	}
	return name, pos, sudo
}

// matchCmdFlag reads the command a flag is in: when its program is one of
// the tables', its password is masked; when it reads one from its input
// (sudo -S, login --password-stdin), what echo or printf pipes into it.
func matchCmdFlag(sc *scan, i int, ru *rule) int {
	s := sc.s
	// Most dashes after a space are no flag the family reads (a list's
	// bullet, a diff's line, --verbose): those cost no scan of the command.
	if s[i+1] == '-' {
		f := i + 1
		e := f
		for e < len(s) && e-f < 32 && (csName[s[e]] || s[e] == '-') {
			e++
		}
		if !flagWanted(s[f:e]) {
			return e
		}
	}
	start := sc.commandStart(i)
	end := commandEnd(s, i, maxCommand)
	name, pos, sudo := programAt(s, start, end)
	if _, ok := cmdFlags[name]; ok || slices.Contains(cmdArgs, name) {
		cmdTable(sc, pos, name, ru)
	}
	cmd := s[start:end]
	if sudo && sudoS(cmd) || strings.Contains(cmd, "--password-stdin") || strings.Contains(cmd, "--stdin") {
		pipedInto(sc, start, ru)
	}
	return end
}

// matchCmdName reads the command of a program that takes a password as
// an argument and may have no flag (nmcli, sqlplus, rabbitmqctl).
func matchCmdName(sc *scan, i int, ru *rule) int {
	name := ru.prefix
	if name == "net user " {
		name = "net"
	}
	if name == "mqctl" {
		if i < 6 || sc.s[i-6:i] != "rabbit" {
			return 0
		}
		i, name = i-6, "rabbitmqctl"
	}
	return cmdTable(sc, i, name, ru)
}

// cmdWords splits the command at i (program name first) into its words,
// as [start, end) pairs, up to the end of the command; ok is false when
// the program's name goes on past prefix (libcurl, netstat).
func cmdWords(sc *scan, i int, prefix string, words [][2]int) ([][2]int, int, bool) {
	s := sc.s
	e := i + len(prefix)
	if hasPrefixFold(s[e:], ".exe") {
		e += len(".exe")
	}
	if wordBefore(s, i, csWord) && !strings.HasSuffix(s[:i], "/bin/") && !strings.HasSuffix(s[:i], "/sbin/") || e < len(s) && !isCmdSpace(s, e) {
		return nil, e, false
	}
	end := commandEnd(s, i, maxCommand)
	sc.work += end - i
	for k := e; k < end && len(words) < 64; {
		for k < end && isCmdSpace(s, k) {
			k++
		}
		if k >= end {
			break
		}
		ts := k
		k = tokenEnd(s, k, end)
		words = append(words, [2]int{ts, k})
	}
	return words, end, true
}

// cmdTable masks the passwords on the command line of name, a program of
// cmdFlags or cmdArgs starting at i, and returns the command's end.
func cmdTable(sc *scan, i int, name string, ru *rule) int {
	s := sc.s
	var buf [64][2]int
	words, end, ok := cmdWords(sc, i, name, buf[:0])
	if !ok {
		return end
	}
	word := func(n int) string { return s[words[n][0]:words[n][1]] }
	mask := func(a, b int) {
		a, b = unquote(s, a, b)
		if strings.HasPrefix(s[a:b], "pass:") {
			a += len("pass:") // openssl's pass:secret; env:, file:, fd: name no secret
		} else if name == "openssl" && strings.IndexByte(s[a:b], ':') > 0 {
			return
		}
		sc.password(a, b, ru)
	}
	flags := cmdFlags[name]
	for n := 0; n < len(words); n++ {
		w := word(n)
		for _, f := range flags {
			switch {
			case strings.HasSuffix(f, "+") && strings.HasPrefix(w, f[:len(f)-1]) && len(w) > len(f)-1:
				mask(words[n][0]+len(f)-1, words[n][1])
			case strings.HasSuffix(f, ":") && len(w) > len(f) && strings.EqualFold(w[:len(f)], f):
				mask(words[n][0]+len(f), words[n][1])
			case w == f && n+1 < len(words):
				n++
				mask(words[n][0], words[n][1])
			case strings.HasPrefix(f, "--") && strings.HasPrefix(w, f+"="):
				mask(words[n][0]+len(f)+1, words[n][1])
			}
		}
	}
	switch name {
	case "htpasswd":
		// htpasswd -b[c] file user pass; htpasswd -nb user pass.
		batch, pos := false, 0
		want := 3
		for n := 0; n < len(words); n++ {
			w := word(n)
			if strings.HasPrefix(w, "-") {
				batch = batch || strings.Contains(w, "b")
				if strings.Contains(w, "n") {
					want = 2
				}
				if w == "-C" || w == "-r" {
					n++
				}
				continue
			}
			if pos++; batch && pos == want {
				mask(words[n][0], words[n][1])
			}
		}
	case "net":
		// net use [drive] \\host\share [pass] /user:name [pass]; net user name pass /add.
		if len(words) < 2 {
			break
		}
		sub := strings.ToLower(word(0))
		pos := 0
		for n := 1; n < len(words); n++ {
			w := word(n)
			switch {
			case strings.HasPrefix(w, "/"):
			case sub == "use" && (strings.HasPrefix(w, `\`) || len(w) == 2 && w[1] == ':' || w == "*"):
			case sub == "use":
				mask(words[n][0], words[n][1])
			case sub == "user" && w != "*":
				if pos++; pos == 2 {
					mask(words[n][0], words[n][1])
				}
			}
		}
	case "nmcli":
		for n := 0; n+1 < len(words); n++ {
			switch strings.TrimLeft(word(n), "+") {
			case "password", "wifi-sec.psk", "802-1x.password", "wifi-sec.wep-key0", "vpn.secrets", "pppoe.password":
				mask(words[n+1][0], words[n+1][1])
			}
		}
	case "sqlplus":
		// sqlplus user/pass@db
		for n := 0; n < len(words); n++ {
			a, b := unquote(s, words[n][0], words[n][1])
			w := s[a:b]
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "@") {
				continue
			}
			if sl := strings.IndexByte(w, '/'); sl > 0 {
				e := len(w)
				if at := strings.LastIndexByte(w, '@'); at > sl {
					e = at
				}
				sc.password(a+sl+1, a+e, ru)
			}
			break
		}
	case "lftp", "skopeo", "buildah", "smbclient", "rpcclient", "smbcacls", "smbget", "smbtree":
		// lftp -u user,pass; skopeo --creds user:pass; smbclient -U 'DOM\user%pass'.
		sep := map[string]byte{"lftp": ',', "skopeo": ':', "buildah": ':'}[name]
		if sep == 0 {
			sep = '%'
		}
		for n := 0; n < len(words); n++ {
			w := word(n)
			a, b := 0, 0
			switch {
			case (w == "-u" || w == "-U" || w == "--user" || w == "--creds" || w == "--src-creds" || w == "--dest-creds") && n+1 < len(words):
				n++
				a, b = unquote(s, words[n][0], words[n][1])
			case strings.HasPrefix(w, "--user=") || strings.HasPrefix(w, "--creds="):
				a, b = unquote(s, words[n][0]+strings.IndexByte(w, '=')+1, words[n][1])
			case len(w) > 2 && (w[:2] == "-U" || w[:2] == "-u") && strings.IndexByte(w, sep) > 0:
				a, b = unquote(s, words[n][0]+2, words[n][1])
			default:
				continue
			}
			if c := strings.IndexByte(s[a:b], sep); c >= 0 {
				sc.password(a+c+1, b, ru)
			}
		}
	case "rabbitmqctl":
		for n := 0; n+2 < len(words); n++ {
			if w := word(n); w == "add_user" || w == "change_password" {
				mask(words[n+2][0], words[n+2][1])
			}
		}
	}
	return end
}

// pipedInto masks what echo or printf pipes into the command that starts
// at start, one that reads a password from its input.
func pipedInto(sc *scan, start int, ru *rule) {
	s := sc.s
	k := start
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k <= 1 || s[k-1] != '|' || s[k-2] == '|' {
		return
	}
	lo := max(0, k-1-maxCommand)
	ps := k - 1
	for ps > lo && s[ps-1] != '\n' && s[ps-1] != ';' && s[ps-1] != '|' && s[ps-1] != '&' &&
		!(s[ps-1] == '"' && ps >= 2 && (s[ps-2] == ':' || s[ps-2] == '[' || s[ps-2] == ',')) && !(escapeEnd(s, ps) && s[ps-1] == 'n' && s[ps] != '\'' && s[ps] != '"') {
		ps--
	}
	sc.work += k - ps
	if pname, ppos, _ := programAt(s, ps, k-1); pname == "echo" || pname == "printf" {
		pipedPassword(sc, ppos, pname, ru)
	}
}

// matchChpasswd masks the name:password lines chpasswd reads: piped from
// echo or printf, or given as a here-string or a here-document.
func matchChpasswd(sc *scan, i int, ru *rule) int {
	s := sc.s
	var buf [64][2]int
	words, end, ok := cmdWords(sc, i, "chpasswd", buf[:0])
	if !ok {
		return end
	}
	start := sc.commandStart(i)
	if name, _, _ := programAt(s, start, end); name != "chpasswd" {
		return end
	}
	pipedInto(sc, start, ru)
	afterColon := func(a, b int) {
		if c := strings.IndexByte(s[a:b], ':'); c >= 0 {
			sc.password(a+c+1, b, ru)
		}
	}
	for n, w := range words {
		// The operator's < may be JSON-escaped (\u003c).
		a, b, op := w[0], w[1], 0
		for ; a < b && op < 3; op++ {
			if s[a] == '<' {
				a++
			} else if strings.HasPrefix(s[a:b], `\u003c`) {
				a += len(`\u003c`)
			} else {
				break
			}
		}
		if a == b && n+1 < len(words) {
			a, b = words[n+1][0], words[n+1][1]
		}
		switch op {
		case 3:
			afterColon(unquote(s, a, b))
		case 2:
			tag := strings.Trim(strings.TrimLeft(s[a:b], "-"), `'"\`)
			heredocPasswords(sc, end, tag, afterColon)
		}
	}
	return end
}

// heredocPasswords hands each name:password line of the here-document
// that follows the command line ending at end to mask, up to its tag.
func heredocPasswords(sc *scan, end int, tag string, mask func(a, b int)) {
	s := sc.s
	if tag == "" {
		return
	}
	k := end
	for n := 0; n < 256; n++ {
		next, ok := lineBreakAt(s, k)
		if !ok {
			return
		}
		e := next
		for e < len(s) && e-next < maxCommand && s[e] != '\n' && s[e] != '\r' && !(s[e] == '\\' && e+1 < len(s) && s[e+1] == 'n') {
			e++
		}
		sc.work += e - next
		line := strings.TrimSpace(s[next:e])
		if line == tag {
			return
		}
		mask(next, e)
		k = e
	}
}

// pipedPassword masks what echo or printf (name, at i) feeds a command
// that reads a password from its input: sudo -S, login --password-stdin,
// passwd --stdin, chpasswd (user:pass).
func pipedPassword(sc *scan, i int, name string, ru *rule) int {
	s := sc.s
	var buf [64][2]int
	words, end, ok := cmdWords(sc, i, name, buf[:0])
	if !ok || end >= len(s) || s[end] != '|' || end+1 < len(s) && s[end+1] == '|' {
		return end
	}
	next, _ := afterSpaces(s, end+1)
	nend := commandEnd(s, next, maxCommand)
	sc.work += nend - next
	cmd := s[next:nend]
	pname, _, _ := programAt(s, next, nend)
	chpasswd := pname == "chpasswd"
	stdin := chpasswd || strings.Contains(cmd, "--password-stdin") || strings.Contains(cmd, "--stdin") ||
		strings.HasPrefix(cmd, "sudo ") && sudoS(cmd)
	if !stdin {
		return end
	}
	for _, w := range words {
		a, b := unquote(s, w[0], w[1])
		v := s[a:b]
		if strings.HasPrefix(v, "-") && name == "echo" || name == "printf" && strings.Contains(v, "%") {
			continue
		}
		v = strings.TrimSuffix(strings.TrimSuffix(v, `\n`), `\\n`)
		b = a + len(v)
		if chpasswd {
			if c := strings.IndexByte(v, ':'); c >= 0 {
				a += c + 1
			}
		}
		sc.password(a, b, ru)
	}
	return end
}

// sudoS reports whether a sudo command line reads the password from its
// input: -S, alone or among other letters (-kS), or --stdin.
func sudoS(cmd string) bool {
	for _, w := range strings.Fields(cmd)[1:] {
		if !strings.HasPrefix(w, "-") {
			return false
		}
		if !strings.HasPrefix(w, "--") && strings.Contains(w, "S") {
			return true
		}
	}
	return false
}

// matchCreateUser masks the password of Django's create_superuser(name,
// email, password) and create_user(name, email, password): the third
// argument when it is a string literal.
func matchCreateUser(sc *scan, i int, ru *rule) int {
	s := sc.s
	if i < 6 || s[i-6:i] != "create" {
		return 0
	}
	k := i + len(ru.prefix)
	end := min(len(s), k+512)
	start := k
	defer func() { sc.work += k - start }()
	for arg := 0; k < end; arg++ {
		k, _ = afterSpaces(s, k)
		q := quoteLen(s, k)
		var ve int
		if q > 0 {
			c := closingQuote(s, k+q, end, s[k:k+q])
			if c < 0 {
				return end
			}
			if arg == 2 {
				sc.password(k+q, c, ru)
				return c
			}
			ve = c + q
		} else {
			ve = k
			for ve < end && s[ve] != ',' && s[ve] != ')' {
				ve++
			}
			if strings.Contains(s[k:ve], "=") {
				return ve // keyword arguments: the assignment rule reads them
			}
		}
		ve, _ = afterSpaces(s, ve)
		if ve >= end || s[ve] != ',' {
			return ve
		}
		k = ve + 1
	}
	return end
}

// matchPgpass masks the password of a .pgpass line,
// host:port:database:user:password, triggered at the colon before the
// port. It reads no further than the fields it checks, in order.
func matchPgpass(sc *scan, i int, ru *rule) int {
	s := sc.s
	hs := i
	for hs > 0 && i-hs < 256 && csPgpassName[s[hs-1]] && !escapeEnd(s, hs) {
		hs--
	}
	sc.work += i - hs
	if hs == i || !atLineStart(s, hs) && !(hs >= 2 && s[hs-1] == ' ' && s[hs-2] == '\'') {
		return 0
	}
	k := i + 1
	if s[k] == '*' {
		k++
	} else if k = run(s, k, csDigit, 6); k-(i+1) > 5 {
		return k
	}
	for field := 0; field < 2; field++ { // the database, the user
		if k >= len(s) || s[k] != ':' {
			return k
		}
		e := run(s, k+1, csPgpassName, 256)
		if e == k+1 {
			return e
		}
		k = e
	}
	if k >= len(s) || s[k] != ':' {
		return k
	}
	ps := k + 1
	pe := ps
	for pe < len(s) && pe-ps < 512 && s[pe] > ' ' && s[pe] != '"' && s[pe] != '\'' && s[pe] != '\\' && s[pe] != ':' {
		pe++
	}
	sc.work += pe - i
	if _, ok := lineBreakAt(s, pe); ok || pe == len(s) || s[pe] == '"' || s[pe] == '\'' {
		sc.password(ps, pe, ru)
	}
	return pe
}

// csPgpassName is what a .pgpass line's host, database and user are made of.
var csPgpassName = newCharset("a-zA-Z0-9_.*-")

// programNames maps the programs the family reads to themselves, to look
// a word up in any case without allocating.
var programNames = func() map[string]string {
	m := map[string]string{"echo": "echo", "printf": "printf", "chpasswd": "chpasswd"}
	for name := range cmdFlags {
		m[name] = name
	}
	for _, name := range cmdArgs {
		m[name] = name
	}
	return m
}()

// programName returns the program a command's first word names (in any
// case, with or without .exe), or "" when the family does not read it.
func programName(w string) string {
	var buf [32]byte
	if len(w) > len(buf) {
		return ""
	}
	b := buf[:0]
	for i := 0; i < len(w); i++ {
		b = append(b, lower(w[i]))
	}
	if n := len(b); n > 4 && string(b[n-4:]) == ".exe" {
		b = b[:n-4]
	}
	return programNames[string(b)]
}

// wantedFlags are the flags after which the family reads a command.
var wantedFlags = func() map[string]bool {
	m := map[string]bool{"--password-stdin": true, "--stdin": true, "--user": true, "--creds": true,
		"--src-creds": true, "--dest-creds": true}
	for _, fs := range cmdFlags {
		for _, f := range fs {
			m[strings.TrimRight(f, "+:")] = true
		}
	}
	return m
}()

// flagWanted reports whether the family reads the command of flag f (its
// name, without a value): one of the tables', or a cluster of short flags
// that may hold one (-nbB, -kS, -pSECRET, -Uuser%pass).
func flagWanted(f string) bool {
	if wantedFlags[f] {
		return true
	}
	if len(f) < 2 || f[1] == '-' {
		return false
	}
	switch f[1] {
	case 'p', 'P', 'u', 'U', 'w':
		return true // attached: 7z -pSECRET, smbclient -Uuser%pass
	}
	return len(f) <= 6 && strings.ContainsAny(f, "bS")
}
