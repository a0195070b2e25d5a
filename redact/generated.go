package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Values printed by a command that generates secrets: openssl rand
// -base64 32, pwgen, python's secrets.token_hex(), head -c 32
// /dev/urandom | base64. What such a command prints is random and has no
// prefix or key to know it by, so the command marks the text's lines after
// it, and a Stream carries the mark to the texts that follow (the tool's
// result), where a text made only of random tokens is masked.

// genCommands mark a command whose output is a secret.
var genCommands = []string{
	"openssl rand", "pwgen", "token_hex(", "token_urlsafe(", "token_bytes(", "randomBytes(", "/dev/urandom",
	"/dev/random", "gen-random", "get_random_secret_key", "wg genkey", "wg genpsk", "rails secret", "rake secret",
	"secret:generate", "key:generate --show", "mkpasswd", "apg -", "randpw", "generate_secret", "gen_secret",
	"crypto.randomBytes", "random_bytes(", "SecureRandom.",
}

// genKind is the kind of a generator's value.
const genKind = "generated-secret"

// genTexts is how many texts after the command's may hold what it
// printed: the rest of the tool call, the result and its structured copy.
const genTexts = 32

// genFields are the fields whose texts may hold a command's output.
var genFields = map[string]bool{"": true, "content": true, "stdout": true, "text": true, "output": true, "result": true}

// genRules are the rules that find a generator in any text (a tool's
// output that echoes the command): the most common ones only, on rare
// letter pairs (the tail of token_hex(, randomBytes(). A Bash call's command is searched for all of genCommands
// (genCommand), as it is short.
func genRules() []*rule {
	var rs []*rule
	for _, p := range []string{"openssl rand", "pwgen ", "_hex(", "_urlsafe(", "_bytes(", "mBytes(", "/urandom", "eRandom.", "_random_secret", "wg gen"} {
		rs = append(rs, &rule{prefix: p, kind: genKind, prio: prioKeyed, match: matchGenCommand})
	}
	return rs
}

// genCommand reports whether a command runs a generator of secrets.
func genCommand(cmd string) bool {
	if len(cmd) > maxCommand {
		return false
	}
	// Every generator's name holds one of these: most commands are
	// passed over with five short searches.
	if !strings.Contains(cmd, "ran") && !strings.Contains(cmd, "Ran") && !strings.Contains(cmd, "gen") &&
		!strings.Contains(cmd, "token_") && !strings.Contains(cmd, "secret") {
		return false
	}
	for _, g := range genCommands {
		if strings.Contains(cmd, g) {
			return true
		}
	}
	return false
}

// matchGenCommand notes the command and masks the random tokens on the
// lines after it in the same text.
func matchGenCommand(sc *scan, i int, ru *rule) int {
	s := sc.s
	sc.genSeen = true
	k := i
	for k < len(s) && k-i < maxCommand {
		if n, ok := lineBreakAt(s, k); ok {
			k = n
			break
		}
		k++
	}
	sc.work += k - i
	return sc.loneTokens(k, 16, false)
}

// continueGen masks a text that follows a secret-generating command when
// it is made only of random tokens, one a line, and updates c. Once the
// command's output is found, only copies of it are (the tool result's
// structured copy): the Carry keeps a short hash of each value, never the
// value, and a later random line (a commit id) stays.
func (sc *scan) continueGen(c *Carry, field string) {
	if c.Gen <= 0 || field == keyField {
		return
	}
	c.Gen--
	if c.Gen == 0 {
		c.GenHashes = nil
	}
	if !genFields[field] {
		return
	}
	n := len(sc.spans)
	if sc.loneTokens(0, 16, true) == 0 || len(sc.spans) == n {
		return
	}
	if c.GenHashes != nil {
		for _, sp := range sc.spans[n:] {
			if !slices.Contains(c.GenHashes, genHash(sc.s[sp.start:sp.end])) {
				sc.spans = sc.spans[:n] // another value: not the command's
				return
			}
		}
		return
	}
	for _, sp := range sc.spans[n:] {
		if len(c.GenHashes) < 8 {
			c.GenHashes = append(c.GenHashes, genHash(sc.s[sp.start:sp.end]))
		}
	}
	c.Gen = min(c.Gen, 8) // its structured copy comes next
}

// genHash is what a Carry keeps of a generated value to know its copies:
// 48 bits of its SHA-256, which tell nothing of it.
func genHash(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:6])
}

// loneTokens masks the lines from k on that hold one random token each
// (up to max lines, stopping at the first that does not). whole: the text
// must be nothing but such lines, or nothing is masked. It returns where
// it stopped.
func (sc *scan) loneTokens(k, max int, whole bool) int {
	s := sc.s
	var found []span
	for lines := 0; k < len(s) && lines < max; lines++ {
		a, _ := afterSpaces(s, k)
		e := sc.run(a, csTail, maxLong)
		t := e - a
		end, _ := afterSpaces(s, e)
		next, eol := lineBreakAt(s, end)
		if end == len(s) {
			next, eol = end, true
		}
		if !eol || !generated(s[a:e]) {
			if whole && strings.TrimSpace(s[k:]) != "" {
				return k
			}
			// Other output between (a message, a blank line) is passed
			// over; the next command's prompt ends the output.
			if strings.HasPrefix(s[a:], "$ ") || strings.HasPrefix(s[a:], "> ") {
				break
			}
			for !eol && end < len(s) && end-k < maxCommand {
				end++
				next, eol = lineBreakAt(s, end)
			}
			if !eol {
				break
			}
			sc.work += end - k
			k = next
			continue
		}
		if t > 0 {
			found = append(found, span{start: a, end: e, kind: genKind, prio: prioKeyed})
		}
		k = next
	}
	for _, sp := range found {
		sc.emit(sp)
	}
	return k
}

// generated reports whether t, a line's only word, is what a generator
// prints: 16 or more characters of base64 or hex, letters and digits
// mixed, random; not a UUID, which many commands print, nor a path.
func generated(t string) bool {
	// No generator prints a dot, and a path starts with a slash: a list
	// of files (a Glob's result) is no generator's output.
	if len(t) < 16 || !hasDigitAndLetter(t) || isUUID(t) || strings.ContainsAny(t, ".") || t[0] == '/' ||
		strings.Count(t, "/") > len(t)/16+1 {
		return false
	}
	return entropy(t) >= 3.3
}

// isUUID reports whether t is a UUID (8-4-4-4-12 hex digits).
func isUUID(t string) bool {
	if len(t) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if t[i] != '-' {
				return false
			}
		} else if !csHex[t[i]] {
			return false
		}
	}
	return true
}
