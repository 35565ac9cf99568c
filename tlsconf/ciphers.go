package tlsconf

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// tls-ciphers: OpenSSL's cipher-list language (ciphers(1)) over the TLS
// 1.2 suites Go implements. A list is tokens separated by ':', ',' or
// spaces; each token is a suite name or a keyword, or several joined by
// '+' (the suites matching all of them), optionally prefixed by an
// operator: none adds the suites (in their order) that are not there yet,
// '-' removes them, '!' removes them for good (later tokens cannot add
// them back), '+' moves them to the end. @STRENGTH is accepted (Go orders
// the suites itself); other @ commands are refused. A name or keyword
// that matches no suite Go implements is skipped, as OpenSSL skips a name
// it does not know; a list that leaves no suite is an error.

// suite is a TLS 1.2 suite Go implements, with OpenSSL's name and the
// keywords that select it.
type suite struct {
	name string
	id   uint16
	tags []string
}

// suites are Go's TLS 1.2 suites, most preferred first.
var suites = func() []suite {
	names := []struct {
		name string
		id   uint16
	}{
		{"ECDHE-ECDSA-AES128-GCM-SHA256", tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
		{"ECDHE-RSA-AES128-GCM-SHA256", tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384},
		{"ECDHE-RSA-AES256-GCM-SHA384", tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
		{"ECDHE-ECDSA-CHACHA20-POLY1305", tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
		{"ECDHE-RSA-CHACHA20-POLY1305", tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
		{"ECDHE-ECDSA-AES128-SHA", tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA},
		{"ECDHE-RSA-AES128-SHA", tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA},
		{"ECDHE-ECDSA-AES256-SHA", tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA},
		{"ECDHE-RSA-AES256-SHA", tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA},
		{"ECDHE-ECDSA-AES128-SHA256", tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256},
		{"ECDHE-RSA-AES128-SHA256", tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256},
		{"AES128-GCM-SHA256", tls.TLS_RSA_WITH_AES_128_GCM_SHA256},
		{"AES256-GCM-SHA384", tls.TLS_RSA_WITH_AES_256_GCM_SHA384},
		{"AES128-SHA256", tls.TLS_RSA_WITH_AES_128_CBC_SHA256},
		{"AES128-SHA", tls.TLS_RSA_WITH_AES_128_CBC_SHA},
		{"AES256-SHA", tls.TLS_RSA_WITH_AES_256_CBC_SHA},
		{"ECDHE-RSA-DES-CBC3-SHA", tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA},
		{"DES-CBC3-SHA", tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA},
		{"ECDHE-ECDSA-RC4-SHA", tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA},
		{"ECDHE-RSA-RC4-SHA", tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA},
		{"RC4-SHA", tls.TLS_RSA_WITH_RC4_128_SHA},
	}
	out := make([]suite, len(names))
	for i, n := range names {
		out[i] = suite{name: n.name, id: n.id, tags: suiteTags(n.name)}
	}
	return out
}()

// defaultList is OpenSSL's DEFAULT over Go's suites, what an empty
// tls-ciphers means as in Redis: every AES and ChaCha20 suite, with RSA
// key exchange too (Go's own default leaves those out), but not 3DES or
// RC4. Go's server still picks by its own preference, which ranks ECDHE
// with an AEAD first.
const defaultList = "HIGH"

// suiteTags derives the keywords that select a suite from its OpenSSL
// name: key exchange, authentication, cipher, MAC and strength.
func suiteTags(name string) []string {
	tags := []string{"ALL", "TLSv1.2", "SSLv3"}
	ecdhe := strings.HasPrefix(name, "ECDHE-")
	if ecdhe {
		tags = append(tags, "ECDHE", "EECDH", "kECDHE", "kEECDH", "ECDH")
	} else {
		tags = append(tags, "kRSA", "RSA")
	}
	switch {
	case strings.Contains(name, "-ECDSA-"):
		tags = append(tags, "aECDSA", "ECDSA")
	default:
		tags = append(tags, "aRSA") // RSA is kRSA's alias, as in OpenSSL
	}
	high := true
	switch {
	case strings.Contains(name, "AES128-GCM") || strings.Contains(name, "AES256-GCM"):
		tags = append(tags, "AES", "AESGCM", "AES"+name[strings.Index(name, "AES")+3:][:3])
	case strings.Contains(name, "AES128") || strings.Contains(name, "AES256"):
		tags = append(tags, "AES", "AES"+name[strings.Index(name, "AES")+3:][:3])
	case strings.Contains(name, "CHACHA20"):
		tags = append(tags, "CHACHA20")
	case strings.Contains(name, "DES-CBC3"):
		tags, high = append(tags, "3DES", "MEDIUM"), false
	case strings.Contains(name, "RC4"):
		tags, high = append(tags, "RC4", "MEDIUM"), false
	}
	if high {
		tags = append(tags, "HIGH")
	}
	switch {
	case strings.HasSuffix(name, "-SHA256"):
		tags = append(tags, "SHA256")
	case strings.HasSuffix(name, "-SHA384"):
		tags = append(tags, "SHA384")
	case strings.HasSuffix(name, "-SHA"):
		tags = append(tags, "SHA1", "SHA")
	}
	return tags
}

// matches reports whether s is selected by term: suite names and keywords
// joined by '+'.
func (s suite) matches(term string) bool {
	for _, word := range strings.Split(term, "+") {
		switch {
		case strings.EqualFold(word, s.name):
		case word == "DEFAULT":
			if !s.matches(defaultList) {
				return false
			}
		case word == "COMPLEMENTOFDEFAULT":
			if s.matches(defaultList) {
				return false
			}
		case !slices.Contains(s.tags, word):
			return false
		}
	}
	return true
}

// ciphers parses tls-ciphers ("" is DEFAULT).
func ciphers(list string) ([]uint16, error) {
	if list == "" {
		list = defaultList
	}
	var on []suite
	banned := map[uint16]bool{}
	for _, tok := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		if strings.HasPrefix(tok, "@") {
			if tok == "@STRENGTH" {
				continue
			}
			return nil, fmt.Errorf("Failed to configure ciphers: %s: %s is not supported (Go orders the suites itself)", list, tok)
		}
		op := byte(0)
		if strings.ContainsRune("-!+", rune(tok[0])) {
			op, tok = tok[0], tok[1:]
		}
		switch op {
		case 0:
			for _, s := range suites {
				if s.matches(tok) && !banned[s.id] && !slices.ContainsFunc(on, func(o suite) bool { return o.id == s.id }) {
					on = append(on, s)
				}
			}
		case '-', '!':
			on = slices.DeleteFunc(on, func(s suite) bool { return s.matches(tok) })
			if op == '!' {
				for _, s := range suites {
					if s.matches(tok) {
						banned[s.id] = true
					}
				}
			}
		case '+':
			var moved []suite
			on = slices.DeleteFunc(on, func(s suite) bool {
				if s.matches(tok) {
					moved = append(moved, s)
					return true
				}
				return false
			})
			on = append(on, moved...)
		}
	}
	if len(on) == 0 {
		return nil, fmt.Errorf("Failed to configure ciphers: %s", list)
	}
	ids := make([]uint16, len(on))
	for i, s := range on {
		ids[i] = s.id
	}
	return ids, nil
}
