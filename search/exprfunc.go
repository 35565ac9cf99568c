package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// exprFunc is a function of the expression language: its name, its
// argument counts (max < 0: any) and what it computes.
type exprFunc struct {
	name     string
	min, max int
	call     func(args []Value) (Value, error)
}

var exprFuncs = map[string]*exprFunc{}

func init() {
	add := func(name string, min, max int, call func([]Value) (Value, error)) {
		exprFuncs[name] = &exprFunc{name: name, min: min, max: max, call: call}
	}
	math1 := func(f func(float64) float64) func([]Value) (Value, error) {
		return func(a []Value) (Value, error) {
			x, ok := a[0].toNumber()
			if !ok {
				return numVal(math.NaN()), nil
			}
			return numVal(f(x)), nil
		}
	}
	add("log", 1, 1, math1(math.Log))
	add("log2", 1, 1, math1(math.Log2))
	add("exp", 1, 1, math1(math.Exp))
	add("sqrt", 1, 1, math1(math.Sqrt))
	add("abs", 1, 1, math1(math.Abs))
	add("ceil", 1, 1, math1(math.Ceil))
	add("floor", 1, 1, math1(math.Floor))
	caseFn := func(f func(string) string) func([]Value) (Value, error) {
		return func(a []Value) (Value, error) {
			if !a[0].isString() {
				return nullVal(), nil
			}
			return strVal(f(a[0].Str)), nil
		}
	}
	add("lower", 1, 1, caseFn(asciiLower))
	add("upper", 1, 1, caseFn(asciiUpper))
	add("substr", 3, 3, funcSubstr)
	add("format", 1, -1, funcFormat)
	add("split", 1, 3, funcSplit)
	add("matched_terms", 0, 1, func([]Value) (Value, error) { return nullVal(), nil })
	add("exists", 1, 1, func(a []Value) (Value, error) { return boolVal(a[0].Kind != Missing), nil })
	add("startswith", 2, 2, func(a []Value) (Value, error) {
		if err := needStrings("startswith", a); err != nil {
			return Value{}, err
		}
		return boolVal(strings.HasPrefix(a[0].Str, a[1].Str)), nil
	})
	add("contains", 2, 2, func(a []Value) (Value, error) {
		if err := needStrings("contains", a); err != nil {
			return Value{}, err
		}
		if a[1].Str == "" {
			return numVal(float64(len(a[0].Str) + 1)), nil
		}
		n, s := 0, a[0].Str
		for {
			i := strings.Index(s, a[1].Str)
			if i < 0 {
				break
			}
			n++
			s = s[i+1:]
		}
		return numVal(float64(n)), nil
	})
	add("strlen", 1, 1, func(a []Value) (Value, error) {
		if err := needStrings("strlen", a); err != nil {
			return Value{}, err
		}
		return numVal(float64(len(a[0].Str))), nil
	})
	add("timefmt", 1, 2, funcTimefmt)
	add("parsetime", 2, 2, funcParsetime)
	dateFn := func(f func(t time.Time) float64) func([]Value) (Value, error) {
		return func(a []Value) (Value, error) {
			x, ok := a[0].toNumber()
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				return nullVal(), nil
			}
			return numVal(f(time.Unix(int64(x), 0).UTC())), nil
		}
	}
	unix := func(t time.Time) float64 { return float64(t.Unix()) }
	add("minute", 1, 1, dateFn(func(t time.Time) float64 { return unix(t.Truncate(time.Minute)) }))
	add("hour", 1, 1, dateFn(func(t time.Time) float64 { return unix(t.Truncate(time.Hour)) }))
	add("day", 1, 1, dateFn(func(t time.Time) float64 {
		return unix(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC))
	}))
	add("month", 1, 1, dateFn(func(t time.Time) float64 {
		return unix(time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC))
	}))
	add("dayofweek", 1, 1, dateFn(func(t time.Time) float64 { return float64(t.Weekday()) }))
	add("dayofmonth", 1, 1, dateFn(func(t time.Time) float64 { return float64(t.Day()) }))
	add("dayofyear", 1, 1, dateFn(func(t time.Time) float64 { return float64(t.YearDay() - 1) }))
	add("year", 1, 1, dateFn(func(t time.Time) float64 { return float64(t.Year()) }))
	add("monthofyear", 1, 1, dateFn(func(t time.Time) float64 { return float64(t.Month() - 1) }))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// needStrings checks that every argument is a string, as RediSearch's
// VALIDATE_ARG_ISSTRING.
func needStrings(fn string, a []Value) error {
	for i, v := range a {
		if !v.isString() {
			return errf(errExprArgString, kindCode(v), i, fn, i)
		}
	}
	return nil
}

func kindCode(v Value) int {
	if v.Kind == Missing {
		return int(Null)
	}
	return int(v.Kind)
}

func funcSubstr(a []Value) (Value, error) {
	for i := 1; i <= 2; i++ {
		if a[i].Kind != Number {
			return Value{}, errf(errExprArgType, kindCode(a[i]), i, "substr")
		}
	}
	if !a[0].isString() {
		return Value{}, Error(errExprSubstr)
	}
	s := a[0].Str
	sz := len(s)
	off, n := int(int32(a[1].Num)), int(int32(a[2].Num))
	if off < 0 {
		off = sz + off
	}
	off = max(0, min(off, sz))
	if n < 0 {
		n = max(0, sz-off+n)
	}
	if off+n > sz {
		n = sz - off
	}
	return strVal(s[off : off+n]), nil
}

func funcFormat(a []Value) (Value, error) {
	if !a[0].isString() {
		return Value{}, errf(errExprArgString, kindCode(a[0]), 0, "format", 0)
	}
	f := a[0].Str
	var b strings.Builder
	argi := 1
	last := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i == len(f)-1 {
			return Value{}, Error(errExprFormatBad)
		}
		b.WriteString(f[last:i])
		last = i + 2
		i++
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if argi == len(a) {
			return Value{}, Error(errExprFormatArgs)
		}
		arg := a[argi]
		argi++
		if f[i] != 's' {
			return Value{}, Error(errExprFormatSpec)
		}
		switch arg.Kind {
		case Null, Missing, Array:
			b.WriteString("(null)")
		default:
			b.WriteString(arg.String())
		}
	}
	if last < len(f) {
		b.WriteString(f[last:])
	}
	return strVal(b.String()), nil
}

func funcSplit(a []Value) (Value, error) {
	for i := range a {
		if !a[i].isString() {
			return Value{}, errf(errExprArgString, kindCode(a[i]), i, "split", i)
		}
	}
	sep, strip := ",", " "
	if len(a) >= 2 {
		sep = a[1].Str
	}
	if len(a) == 3 {
		strip = a[2].Str
	}
	s := a[0].Str
	var out []Value
	for len(out) < 1024 {
		i := strings.IndexAny(s, sep)
		tok := s
		if i >= 0 {
			tok = s[:i]
		}
		if t := strings.Trim(tok, strip); t != "" {
			out = append(out, strVal(t))
		}
		if i < 0 || sep == "" {
			break
		}
		s = s[i+1:]
		if s == "" {
			break
		}
	}
	return Value{Kind: Array, Arr: out}, nil
}

func funcTimefmt(a []Value) (Value, error) {
	x, ok := a[0].toNumber()
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return nullVal(), nil
	}
	f := "%FT%TZ"
	if len(a) == 2 {
		if !a[1].isString() {
			return nullVal(), nil
		}
		f = a[1].Str
	}
	return strVal(strftime(f, time.Unix(int64(x), 0).UTC())), nil
}

// strftime formats t as C's strftime does, for the common conversions.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i == len(f)-1 {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'F':
			fmt.Fprintf(&b, "%d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		case 'R':
			fmt.Fprintf(&b, "%02d:%02d", t.Hour(), t.Minute())
		case 'D':
			fmt.Fprintf(&b, "%02d/%02d/%02d", int(t.Month()), t.Day(), t.Year()%100)
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'u':
			b.WriteString(strconv.Itoa((int(t.Weekday())+6)%7 + 1))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'Z':
			b.WriteString("GMT")
		case 'z':
			b.WriteString("+0000")
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// funcParsetime parses a time as C's strptime does for the common
// conversions, in UTC.
func funcParsetime(a []Value) (Value, error) {
	if !a[0].isString() || !a[1].isString() {
		return nullVal(), nil
	}
	s, f := a[0].Str, a[1].Str
	year, mon, day, hour, minute, sec := 1900, 1, 1, 0, 0, 0
	num := func(maxDigits int) (int, bool) {
		s = strings.TrimLeft(s, " ")
		j := 0
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		for j < len(s) && j < maxDigits && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(s[:j])
		if err != nil {
			return 0, false
		}
		s = s[j:]
		return n, true
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == ' ' {
			s = strings.TrimLeft(s, " ")
			continue
		}
		if c != '%' || i == len(f)-1 {
			if s == "" || s[0] != c {
				return nullVal(), nil
			}
			s = s[1:]
			continue
		}
		i++
		var ok bool
		switch f[i] {
		case 'Y':
			year, ok = num(4)
		case 'm':
			mon, ok = num(2)
		case 'd', 'e':
			day, ok = num(2)
		case 'H':
			hour, ok = num(2)
		case 'M':
			minute, ok = num(2)
		case 'S':
			sec, ok = num(2)
		case 'F':
			if year, ok = num(4); ok && strings.HasPrefix(s, "-") {
				s = s[1:]
				if mon, ok = num(2); ok && strings.HasPrefix(s, "-") {
					s = s[1:]
					day, ok = num(2)
				} else {
					ok = false
				}
			} else {
				ok = false
			}
		case 'T':
			if hour, ok = num(2); ok && strings.HasPrefix(s, ":") {
				s = s[1:]
				if minute, ok = num(2); ok && strings.HasPrefix(s, ":") {
					s = s[1:]
					sec, ok = num(2)
				} else {
					ok = false
				}
			} else {
				ok = false
			}
		case '%':
			ok = strings.HasPrefix(s, "%")
			if ok {
				s = s[1:]
			}
		}
		if !ok {
			return nullVal(), nil
		}
	}
	t := time.Date(year, time.Month(mon), day, hour, minute, sec, 0, time.UTC)
	return numVal(float64(t.Unix())), nil
}
