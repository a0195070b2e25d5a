package redact

import "strings"

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

// cmdRules returns a rule per program of the tables.
func cmdRules() []*rule {
	var rs []*rule
	for name := range cmdFlags {
		rs = append(rs, &rule{prefix: name, kind: "password", prio: prioShape, match: matchCmdTable})
	}
	for _, name := range cmdArgs {
		if _, ok := cmdFlags[name]; !ok {
			rs = append(rs, &rule{prefix: name, kind: "password", prio: prioShape, match: matchCmdTable})
		}
	}
	// smbclient takes both: a flag, and -U user%pass.
	for _, name := range []string{"echo", "printf"} {
		rs = append(rs, &rule{prefix: name, kind: "password", prio: prioShape, match: matchPipedPassword})
	}
	for _, p := range []string{":0", ":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9", ":*"} {
		rs = append(rs, &rule{prefix: p, kind: "password", prio: prioShape, match: matchPgpass})
	}
	for _, name := range []string{"create_superuser(", "create_user("} {
		rs = append(rs, &rule{prefix: name, kind: "password", prio: prioShape, match: matchCreateUser})
	}
	return rs
}

// cmdWords splits the command at i (program name first) into its words,
// as [start, end) pairs, up to the end of the command; ok is false when
// the program's name goes on past prefix (libcurl, netstat).
func cmdWords(sc *scan, i int, prefix string, words [][2]int) ([][2]int, int, bool) {
	s := sc.s
	e := i + len(prefix)
	if wordBefore(s, i, csWord) && !strings.HasSuffix(s[:i], "/bin/") || e < len(s) && !isCmdSpace(s, e) {
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

// matchCmdTable masks the passwords on the command line of a program of
// cmdFlags or cmdArgs.
func matchCmdTable(sc *scan, i int, ru *rule) int {
	s := sc.s
	var buf [64][2]int
	words, end, ok := cmdWords(sc, i, ru.prefix, buf[:0])
	if !ok {
		return end
	}
	word := func(n int) string { return s[words[n][0]:words[n][1]] }
	mask := func(a, b int) {
		a, b = unquote(s, a, b)
		if strings.HasPrefix(s[a:b], "pass:") {
			a += len("pass:") // openssl's pass:secret; env:, file:, fd: name no secret
		} else if ru.prefix == "openssl" && strings.IndexByte(s[a:b], ':') > 0 {
			return
		}
		sc.password(a, b, ru)
	}
	flags := cmdFlags[ru.prefix]
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
	switch ru.prefix {
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
		sep := map[string]byte{"lftp": ',', "skopeo": ':', "buildah": ':'}[ru.prefix]
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

// matchPipedPassword masks what echo or printf feeds a command that reads
// a password from its input: sudo -S, login --password-stdin, passwd
// --stdin, chpasswd (user:pass).
func matchPipedPassword(sc *scan, i int, ru *rule) int {
	s := sc.s
	var buf [64][2]int
	words, end, ok := cmdWords(sc, i, ru.prefix, buf[:0])
	if !ok || end >= len(s) || s[end] != '|' || end+1 < len(s) && s[end+1] == '|' {
		return end
	}
	next, _ := afterSpaces(s, end+1)
	nend := commandEnd(s, next, maxCommand)
	sc.work += nend - next
	cmd := s[next:nend]
	chpasswd := strings.HasPrefix(cmd, "chpasswd") || strings.HasPrefix(cmd, "sudo chpasswd")
	stdin := chpasswd || strings.Contains(cmd, "--password-stdin") || strings.Contains(cmd, "--stdin") ||
		strings.HasPrefix(cmd, "sudo ") && sudoS(cmd)
	if !stdin {
		return end
	}
	for _, w := range words {
		a, b := unquote(s, w[0], w[1])
		v := s[a:b]
		if strings.HasPrefix(v, "-") && ru.prefix == "echo" || ru.prefix == "printf" && strings.Contains(v, "%") {
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
// port. Each line is read once, whichever colon triggers it.
func matchPgpass(sc *scan, i int, ru *rule) int {
	s := sc.s
	if i < sc.pgpassEnd {
		return sc.pgpassEnd
	}
	ls := i
	for ls > 0 && i-ls < 256 && !lineBreakBefore(s, ls) {
		ls--
	}
	le := i
	for le < len(s) && le-i < 512 && s[le] != '\n' && s[le] != '\r' && !strings.HasPrefix(s[le:], `\n`) && s[le] != '"' {
		le++
	}
	sc.pgpassEnd = le
	sc.work += le - ls
	if !lineBreakBefore(s, ls) && ls > 0 {
		return le
	}
	line := s[ls:le]
	f := strings.SplitN(line, ":", 6)
	if len(f) != 5 || f[1] != "*" && (len(f[1]) > 5 || run(f[1], 0, csDigit, 6) != len(f[1]) || f[1] == "") {
		return le
	}
	for _, x := range f[:4] {
		if x == "" || run(x, 0, csPgpassName, len(x)) != len(x) {
			return le
		}
	}
	if pw := f[4]; pw != "" && !hasSpace(pw) {
		sc.password(le-len(pw), le, ru)
	}
	return le
}

// csPgpassName is what a .pgpass line's host, database and user are made of.
var csPgpassName = newCharset("a-zA-Z0-9_.*-")

// lineBreakBefore reports whether a line starts at k: the text's start, a
// line break (also an escaped one) or a quote before it.
func lineBreakBefore(s string, k int) bool {
	return k == 0 || s[k-1] == '\n' || s[k-1] == '"' || s[k-1] == '\'' || k >= 2 && s[k-2:k] == `\n` || s[k-1] == ' ' && k >= 2 && s[k-2] == '\''
}
