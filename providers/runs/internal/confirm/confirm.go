// Package confirm issues the tokens of two-step confirmations, such as the
// deletion of a recorded execution or conversation: the first request gets a
// random token bound to what it would act on, and only a second request that
// presents that token, before it expires, goes ahead.
package confirm

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/ctxls/ctxls/providers/errkind"
)

// defaultTTL is how long a token stays valid when New is given no TTL.
const defaultTTL = 5 * time.Minute

// ErrInvalidToken is returned by Consume for a token that was not issued for
// the key, was used already, or expired.
var ErrInvalidToken = errkind.New(errkind.Invalid, "invalid delete confirmation token")

// Tokens holds the tokens issued by one process. They live in memory only:
// a confirmation does not survive a restart, by design. Tokens is safe for
// concurrent use.
type Tokens struct {
	ttl time.Duration
	now func() time.Time

	mu     sync.Mutex
	issued map[string]issued
}

type issued struct {
	key     string
	expires time.Time
}

// New returns an empty token set whose tokens last ttl (defaultTTL when
// ttl <= 0), reading the time with now (time.Now when nil).
func New(ttl time.Duration, now func() time.Time) *Tokens {
	if ttl <= 0 {
		ttl = defaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Tokens{ttl: ttl, now: now, issued: make(map[string]issued)}
}

// issue returns a new random token (at least 128 bits from crypto/rand)
// bound to key, and when it expires. Expired tokens are forgotten.
func (t *Tokens) issue(key string) (token string, expires time.Time) {
	now := t.now()
	token = rand.Text()
	expires = now.Add(t.ttl)
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range t.issued {
		if !now.Before(v.expires) {
			delete(t.issued, k)
		}
	}
	t.issued[token] = issued{key: key, expires: expires}
	return token, expires
}

// Request issues a token for key, as issue does, once check, which says
// whether what key names may be acted on, passes.
func (t *Tokens) Request(key string, check func() error) (token string, expires time.Time, err error) {
	if err := check(); err != nil {
		return "", time.Time{}, fmt.Errorf("request delete: %w", err)
	}
	token, expires = t.issue(key)
	return token, expires, nil
}

// Consume checks that token was issued for key and has not expired. A token
// is consumed by its first use, valid or not, so that it cannot be replayed.
func (t *Tokens) Consume(key, token string) error {
	t.mu.Lock()
	v, ok := t.issued[token]
	delete(t.issued, token)
	t.mu.Unlock()
	switch {
	case !ok || v.key != key:
		return ErrInvalidToken
	case !t.now().Before(v.expires):
		return fmt.Errorf("%w: it expired at %s", ErrInvalidToken, v.expires.Format(time.RFC3339))
	}
	return nil
}
