package search

import "testing"

// evalConst parses and evaluates an expression without properties.
func evalConst(t *testing.T, src string) (string, error) {
	t.Helper()
	e, err := ParseExpr(src)
	if err != nil {
		return "", err
	}
	v, err := e.eval(func(int) Value { return Value{} }, nil)
	if err != nil {
		return "", err
	}
	if v.Kind == Null {
		return "NULL", nil
	}
	return v.String(), nil
}

// TestExprPrecedence: RediSearch 2.10's precedence and associativity, as
// its replies show them.
func TestExprPrecedence(t *testing.T) {
	for src, want := range map[string]string{
		"2+3*4":         "14",
		"(2+3)*4":       "20",
		"-2^2":          "4",
		"2^3^2":         "512",
		"12/2/3":        "2",
		"2*3%4":         "2",
		"3 > 1 + 3":     "0",
		"0 && 1 || 1":   "1",
		"1 || 0 && 0":   "1",
		"1 == 1 == 1":   "1",
		"!0 == 0":       "0",
		"-(1+2)":        "-3",
		"10/0":          "nan",
		"5 % 0":         "nan",
		"-7 % 3":        "-1",
		"7.5%2":         "1",
		"1/3":           "0.333333333333",
		"1e20":          "1e+20",
		"\"10\" == 10":  "1",
		"\"a\" < \"b\"": "1",
		"NULL":          "NULL",
		"!\"\"":         "1",
		"'it\\'s'":      "it's",
		"upper(\"ab\")": "AB",
	} {
		got, err := evalConst(t, src)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
}

// TestExprErrors: the parse and evaluation errors, as RediSearch words
// them (a syntax error's offset is its token's, "near" the last number,
// string, symbol or property read).
func TestExprErrors(t *testing.T) {
	for src, want := range map[string]string{
		"1 +":              "Syntax error at offset 2 near '1'",
		"":                 "Syntax error at offset 0 near ''",
		"(1":               "Syntax error at offset 1 near '1'",
		"1 2":              "Syntax error at offset 2 near '2'",
		"10-2-3":           "Syntax error at offset 2 near '-2'",
		"@n @n":            "Syntax error at offset 3 near 'n'",
		"\"x\" \"y\"":      "Syntax error at offset 4 near '\"y\"'",
		"$":                "Syntax error at offset 0 near ''",
		"abc":              "Unknown symbol 'abc'",
		"foo(1)":           "Unknown function name 'foo'",
		"upper()":          "Invalid arguments for function 'upper'",
		"\"abc\"+1":        "Could not convert value to a number",
		"strlen(12)":       "Invalid type (1) for argument 0 in function 'strlen'. VALIDATE_ARG__STRING(v, 0) was false.",
		"format(\"%d\",1)": "Unknown format specifier passed",
	} {
		_, err := evalConst(t, src)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", src, err, want)
		}
	}
}

// TestFormatNumber: integers as integers, others as %.12g.
func TestFormatNumber(t *testing.T) {
	for f, want := range map[float64]string{
		5: "5", -3: "-3", 1.5: "1.5", 0.1 + 0.2: "0.3", 1e20: "1e+20", 1e-5: "1e-05",
		123456789012345: "123456789012345", 100.0 / 3: "33.3333333333",
	} {
		if got := FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %q; want %q", f, got, want)
		}
	}
}
