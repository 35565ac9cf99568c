package acl

import "strings"

// Describe returns the rules as ACL LIST shows them after "user <name> "
// and as the ACL file stores them: flags, password hashes, then each
// selector (the root's unparenthesized), e.g.
// "on nopass sanitize-payload ~* &* +@all".
func (r *Rules) Describe() string {
	var b strings.Builder
	for _, f := range r.flagNames() {
		b.WriteString(f)
		b.WriteByte(' ')
	}
	for _, p := range r.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, s := range r.selectors {
		if i == 0 {
			b.WriteString(s.describe(r.u))
		} else {
			b.WriteString(" (" + s.describe(r.u) + ")")
		}
	}
	return b.String()
}

// flagNames returns the user's flags in Redis's order, as ACL GETUSER
// lists them.
func (r *Rules) flagNames() []string {
	var out []string
	if r.enabled {
		out = append(out, "on")
	} else {
		out = append(out, "off")
	}
	if r.nopass {
		out = append(out, "nopass")
	}
	switch r.sanitize {
	case skipSanitize:
		out = append(out, "skip-sanitize-payload")
	case sanitizePayload:
		out = append(out, "sanitize-payload")
	}
	return out
}

// describe is ACLDescribeSelector: key patterns, channel patterns, then
// the command rules.
func (s *selector) describe(u *Universe) string {
	var b strings.Builder
	if s.flags&allKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String() + " ")
		}
	}
	if s.flags&allChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands(u))
	return b.String()
}

// describeCommands is ACLDescribeSelectorCommandRules: +@all or -@all,
// then the categories that best approach the bitmap (greedily: the
// category with the fewest differences, then with the most in common),
// then single commands and allowed first arguments until the bitmap is
// exactly the selector's.
func (s *selector) describeCommands(u *Universe) string {
	var rules []string
	additive := !s.future()
	fake := newSelector(u, false)
	if additive {
		rules = append(rules, "-@all")
	} else {
		rules = append(rules, "+@all")
		fake.apply(u, "+@all")
	}
	temp := &selector{allowed: append([]uint64(nil), s.allowed...)}
	applied := make([]bool, len(Categories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(u, 1<<j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		sign, inv := "-@", "+@"
		if additive {
			sign, inv = "+@", "-@"
		}
		fake.apply(u, sign+Categories[best])
		temp.apply(u, inv+Categories[best])
		rules = append(rules, sign+Categories[best])
		applied[best] = true
	}
	var walk func(ids []int)
	walk = func(ids []int) {
		for _, id := range ids {
			c := &u.cmds[id]
			user, f := s.bit(id), fake.bit(id)
			if user != f {
				if user {
					rules = append(rules, "+"+c.Name)
				} else {
					rules = append(rules, "-"+c.Name)
				}
				fake.changePerm(c, user)
			}
			walk(c.subs)
			if !user {
				for _, a := range s.firstArgs[id] {
					rules = append(rules, "+"+c.Name+"|"+a)
				}
			}
		}
	}
	walk(u.top)
	return strings.Join(rules, " ")
}

// Description is a selector as ACL GETUSER shows it.
type Description struct {
	Commands, Keys, Channels string
}

func (s *selector) description(u *Universe) Description {
	d := Description{Commands: s.describeCommands(u)}
	if s.flags&allKeys != 0 {
		d.Keys = "~*"
	} else {
		ks := make([]string, len(s.keys))
		for i, k := range s.keys {
			ks[i] = k.String()
		}
		d.Keys = strings.Join(ks, " ")
	}
	if s.flags&allChannels != 0 {
		d.Channels = "&*"
	} else {
		cs := make([]string, len(s.channels))
		for i, c := range s.channels {
			cs[i] = "&" + c
		}
		d.Channels = strings.Join(cs, " ")
	}
	return d
}

// UserInfo is what ACL GETUSER reports of a user.
type UserInfo struct {
	Flags     []string
	Passwords []string
	Root      Description
	Selectors []Description
}

// Info returns the rules as ACL GETUSER reports them.
func (r *Rules) Info() UserInfo {
	info := UserInfo{Flags: r.flagNames(), Passwords: r.passwords, Root: r.selectors[0].description(r.u)}
	for _, s := range r.selectors[1:] {
		info.Selectors = append(info.Selectors, s.description(r.u))
	}
	return info
}
