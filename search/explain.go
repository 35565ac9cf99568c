package search

import (
	"bytes"
	"math"
	"strconv"
)

// Explain returns the query tree of r as RediSearch's FT.EXPLAIN prints
// it: a term with its stem expansions (a union, unless VERBATIM or under
// a negation or in a phrase), intersections, phrases (EXACT), unions,
// negations, prefixes, numeric ranges, tag sets, each prefixed with the
// TEXT fields a modifier restricted it to.
//
// Known difference: DIALECT 1's tag alternatives continued after "}" of
// a field that is not a TAG field are not printed.
func (ix *Index) Explain(r *Request) (string, error) {
	root, knn, err := parseQueryParams(ix.Schema, ix.stop, r.Query, r.Dialect, ix.Config, r.Params)
	if err == nil && knn != nil {
		err = ix.checkExplainKNN(knn)
	}
	if err == nil {
		err = ix.Schema.checkPhonetic(root)
	}
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	e := explainer{ix: ix, b: &b, verbatim: r.Verbatim, lang: findLanguage(r.Language)}
	if knn != nil {
		e.knn(root, knn)
		return b.String(), nil
	}
	if root == nil {
		return "<empty>\n", nil
	}
	e.node(root, 0, false)
	return b.String(), nil
}

// checkExplainKNN is FT.EXPLAIN's check of a KNN clause, RediSearch's: a
// query vector of the wrong size for its VECTOR field, or EPSILON (a
// range query's).
func (ix *Index) checkExplainKNN(knn *knnClause) error {
	f := ix.Schema.Field(knn.field)
	if f == nil || f.Type != Vector {
		return nil
	}
	if err := checkBlob(f, knn.blob); err != nil {
		return err
	}
	switch {
	case knn.epsilon && f.Vector.Algorithm == "FLAT":
		return Error(errVectorOption)
	case knn.epsilon:
		return Error(errVectorRangeAttrs)
	}
	return nil
}

// knn writes a KNN query as RediSearch does: "VECTOR {...}" with the
// clause, after the query it ranks (its terms not expanded) unless that
// is "*".
func (e *explainer) knn(root *node, knn *knnClause) {
	as := knn.as
	if as == "" {
		as = "__" + knn.field + "_score"
	}
	clause := "K=" + strconv.Itoa(knn.k) + " nearest vectors to `$" + knn.blobName +
		"` in vector index associated with field @" + knn.field
	for _, o := range knn.shown {
		clause += ", " + o
	}
	clause += ", yields distance as `" + as + "`}" + attrSuffix(&knn.attrs) + "\n"
	if root == nil || root.op == opWildcard {
		e.b.WriteString("VECTOR {" + clause)
		return
	}
	e.b.WriteString("VECTOR {\n")
	e.verbatim = true
	e.node(root, 1, false)
	e.b.WriteString("} => {" + clause)
}

type explainer struct {
	ix       *Index
	b        *bytes.Buffer
	verbatim bool
	lang     *language // nil: the index's
}

func (e *explainer) pad(depth int) {
	for range depth {
		e.b.WriteString("  ")
	}
}

// fields writes the modifier prefix of a node whose field mask is mask:
// "@NULL:" for none, "@a|b:" for some (in the fields' order), nothing for
// all.
func (e *explainer) fields(mask fieldMask) {
	switch {
	case mask == allFields:
		return
	case mask.empty():
		e.b.WriteString("@NULL:")
		return
	}
	e.b.WriteByte('@')
	n := 0
	for _, f := range e.ix.Schema.Fields {
		if f.Type == Text && f.textID >= 0 && mask.has(f.textID) {
			if n > 0 {
				e.b.WriteByte('|')
			}
			e.b.WriteString(f.Alias)
			n++
		}
	}
	e.b.WriteByte(':')
}

// open writes "NAME {" and the children, then the closing brace.
func (e *explainer) group(name string, kids []*node, depth int, inTag bool) {
	e.b.WriteString(name)
	e.b.WriteString(" {\n")
	for _, k := range kids {
		e.node(k, depth+1, inTag)
	}
	e.pad(depth)
	e.b.WriteString("}\n")
}

func (e *explainer) node(n *node, depth int, inTag bool) {
	e.nodeBody(n, depth, inTag)
	if n.op == opTerm {
		return // a term's weight is on its word's line
	}
	if attrs := attrSuffix(n); attrs != "" {
		e.b.Truncate(e.b.Len() - 1) // the node's last line, without its newline
		e.b.WriteString(attrs + "\n")
	}
}

// attrSuffix is what FT.EXPLAIN writes after a node for its attributes
// (" => { $weight: 2; }"), "" when they are the defaults.
func attrSuffix(n *node) string {
	var attrs string
	if n.weighted && n.weight != 1 {
		attrs += " $weight: " + strconv.FormatFloat(n.weight, 'g', 6, 64) + ";"
	}
	if n.slopSet && n.slop != -1 {
		attrs += " $slop: " + strconv.Itoa(n.slop) + ";"
	}
	if n.inOrder || n.slopSet && n.slop != -1 {
		attrs += " $inorder: " + strconv.FormatBool(n.inOrder) + ";"
	}
	if attrs == "" {
		return ""
	}
	return " => {" + attrs + " }"
}

// termLine writes a term's word, with its weight when it has one.
func (e *explainer) termLine(n *node, w string) {
	e.b.WriteString(w)
	if w == n.word && n.weighted && n.weight != 1 {
		e.b.WriteString(" => {$weight: " + strconv.FormatFloat(n.weight, 'g', 6, 64) + ";}")
	}
	e.b.WriteByte('\n')
}

// nodeBody writes n without its attributes.
func (e *explainer) nodeBody(n *node, depth int, inTag bool) {
	if n.tagField != "" && !inTag {
		e.pad(depth)
		kids := []*node{n}
		if n.op == opOr && n.tagSet {
			kids = n.kids
		}
		e.group("TAG:@"+n.tagField, kids, depth, true)
		return
	}
	e.pad(depth)
	mask := allFields
	switch n.op {
	case opTerm, opPrefix, opEmpty, opSuffix, opFuzzy:
		mask = n.mask
	case opAnd, opOr, opPhrase, opNot:
		if n.masked {
			mask = n.mask
		}
	case opNone:
		if n.none == opPrefix || n.none == opSuffix {
			mask = n.mask
		}
	}
	if !inTag {
		e.fields(mask)
	}
	switch n.op {
	case opTerm:
		if n.expand && !e.verbatim {
			e.b.WriteString("UNION {\n")
			words := expansions(e.ix, e.lang, n, "(expanded)")
			for _, w := range words {
				if w == "(expanded)" {
					w = `""(expanded)` // an empty stem (greek), as RediSearch writes it
				}
				e.pad(depth + 1)
				e.fields(mask)
				e.termLine(n, w)
			}
			e.pad(depth)
			e.b.WriteString("}\n")
			return
		}
		e.termLine(n, n.word)
	case opPrefix, opTagPrefix:
		e.b.WriteString("PREFIX{" + n.word + "*}\n")
	case opTag:
		if n.word == "" {
			e.b.WriteString("\"\"\n")
			break
		}
		e.b.WriteString(n.word + "\n")
	case opEmpty:
		e.b.WriteString("\"\"\n")
	case opSuffix, opTagSuffix:
		e.suffix(n)
	case opMissing:
		e.b.WriteString("ISMISSING{" + n.word + "}\n")
	case opPhrase:
		e.group("EXACT", n.kids, depth, inTag)
	case opAnd:
		e.group("INTERSECT", n.kids, depth, inTag)
	case opOr:
		e.group("UNION", n.kids, depth, inTag)
	case opFuzzy:
		e.b.WriteString("FUZZY{" + n.word + "}\n")
	case opOptional:
		e.b.WriteString("OPTIONAL{\n")
		e.node(n.kids[0], depth+1, inTag)
		e.pad(depth)
		e.b.WriteString("}\n")
	case opNot:
		e.b.WriteString("NOT{\n")
		e.node(n.kids[0], depth+1, inTag)
		e.pad(depth)
		e.b.WriteString("}\n")
	case opWildcard:
		e.b.WriteString("<WILDCARD>\n")
	case opNumeric:
		e.numeric(n, n.field.Alias)
	case opNone:
		switch n.none {
		case opNumeric:
			e.numeric(n, n.word)
		case opTag:
			kids := n.kids
			e.group("TAG:@"+n.word, kids, depth, true)
		case opPrefix, opTagPrefix:
			e.b.WriteString("PREFIX{" + n.word + "*}\n")
		case opMissing:
			e.b.WriteString("ISMISSING{" + n.word + "}\n")
		case opSuffix, opTagSuffix:
			e.suffix(n)
		default:
			e.b.WriteString("<empty>\n")
		}
	default:
		e.b.WriteString("<empty>\n")
	}
}

// suffix writes "SUFFIX{*w}" or "INFIX{*w*}".
func (e *explainer) suffix(n *node) {
	if n.contains {
		e.b.WriteString("INFIX{*" + n.word + "*}\n")
		return
	}
	e.b.WriteString("SUFFIX{*" + n.word + "}\n")
}

// numeric writes "NUMERIC {min <= @field <= max}" with C's %f.
func (e *explainer) numeric(n *node, field string) {
	op := func(ex bool) string {
		if ex {
			return " < "
		}
		return " <= "
	}
	e.b.WriteString("NUMERIC {" + cFloat(n.min) + op(n.minEx) + "@" + field + op(n.maxEx) + cFloat(n.max) + "}\n")
}

// cFloat formats f as C's printf %f.
func cFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}
