package postgres

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckURL rejects what is not a PostgreSQL URL before anything connects.
func CheckURL(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" && u.Query().Get("host") == "" {
		return fmt.Errorf("not a PostgreSQL URL: %q", RedactURL(dsn))
	}
	return nil
}

// RedactURL hides a URL's password, for messages and logs.
func RedactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(dsn, "@"); i >= 0 {
			if j := strings.Index(dsn, "://"); j >= 0 && j < i {
				return dsn[:j+3] + "…" + dsn[i:]
			}
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
