package search

import "fmt"

// ScoreExplain is EXPLAINSCORE's account of a score, as RediSearch's
// scorers write it: a line, and the lines of the parts it is made of
// (none: the line alone is replied).
type ScoreExplain struct {
	Text string
	Kids []*ScoreExplain
}

// scoreExplainer returns the function that explains a scorer's scores (SCORER's
// name, "" for TFIDF), in RediSearch 2.10's words. All query weights are
// 1 here.
func scoreExplainer(name string, sc scoring) func(d *document, r *result) *ScoreExplain {
	avgLen := sc.avgLen
	switch name {
	case "TFIDF.DOCNORM":
		return func(d *document, r *result) *ScoreExplain { return explainTFIDF(d, r, d.length) }
	case "BM25":
		return func(d *document, r *result) *ScoreExplain { return explainBM25(d, r, avgLen) }
	case "BM25STD":
		return func(d *document, r *result) *ScoreExplain {
			raw := bm25std(r, d.length, avgLen)
			return &ScoreExplain{
				Text: fmt.Sprintf("Final BM25 : words BM25 %.2f * document score %.2f", raw, d.score),
				Kids: []*ScoreExplain{explainBM25StdRec(r, d.length, avgLen)},
			}
		}
	case "DISMAX":
		return func(_ *document, r *result) *ScoreExplain { return explainDismax(r) }
	case "DOCSCORE":
		return func(d *document, _ *result) *ScoreExplain {
			return &ScoreExplain{Text: fmt.Sprintf("Document's score is %.2f", d.score)}
		}
	case "HAMMING":
		return func(d *document, _ *result) *ScoreExplain {
			_, e := hamming(sc.query, sc.payload(d.id))
			return e
		}
	}
	return func(d *document, r *result) *ScoreExplain { return explainTFIDF(d, r, d.maxFreq) }
}

// explainTFIDF is tfidfNormDocLen's explanation: the record's below a
// final line.
func explainTFIDF(d *document, r *result, norm uint32) *ScoreExplain {
	if d.score == 0 {
		return &ScoreExplain{Text: "Document score is 0"}
	}
	raw := tfidf(r)
	kids := []*ScoreExplain{explainTFIDFRec(r)}
	if s := d.score * raw / float64(norm); s < 0 {
		return &ScoreExplain{Text: fmt.Sprintf("TFIDF score of %.2f is smaller than minimum score %.2f", s, 0.0), Kids: kids}
	}
	return &ScoreExplain{
		Text: fmt.Sprintf("Final TFIDF : words TFIDF %.2f * document score %.2f / norm %d / slop %d", raw, d.score, norm, int(slop(r))),
		Kids: kids,
	}
}

func explainTFIDFRec(r *result) *ScoreExplain {
	switch {
	case r.kind == resTerm:
		return &ScoreExplain{Text: fmt.Sprintf("(TFIDF %.2f = Weight %.2f * TF %d * IDF %.2f)", float64(r.freq)*r.idf, 1.0, r.freq, r.idf)}
	case r.isAgg():
		return &ScoreExplain{
			Text: fmt.Sprintf("(Weight %.2f * total children TFIDF %.2f)", 1.0, tfidf(r)),
			Kids: explainKids(r, explainTFIDFRec),
		}
	}
	return &ScoreExplain{Text: fmt.Sprintf("(TFIDF %.2f = Weight %.2f * Frequency %d)", float64(r.freq), 1.0, r.freq)}
}

func explainKids(r *result, f func(*result) *ScoreExplain) []*ScoreExplain {
	var out []*ScoreExplain
	for _, k := range r.kids {
		out = append(out, f(k))
	}
	return out
}

// explainBM25 is bm25Scorer's explanation.
func explainBM25(d *document, r *result, avgLen float64) *ScoreExplain {
	raw := bm25(r, avgLen)
	kids := []*ScoreExplain{explainBM25Rec(r, avgLen)}
	if s := d.score * raw; s < 0 {
		return &ScoreExplain{Text: fmt.Sprintf("BM25 score of %.2f is smaller than minimum score %.2f", raw, s), Kids: kids}
	}
	return &ScoreExplain{
		Text: fmt.Sprintf("Final BM25 : words BM25 %.2f * document score %.2f / slop %d", raw, d.score, int(slop(r))),
		Kids: kids,
	}
}

func explainBM25Rec(r *result, avgLen float64) *ScoreExplain {
	switch {
	case r.kind == resTerm:
		return &ScoreExplain{Text: fmt.Sprintf("(%.2f = IDF %.2f * F %d / (F %d + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len %.2f)))",
			bm25(r, avgLen), r.idf, r.freq, r.freq, avgLen)}
	case r.isAgg():
		return &ScoreExplain{
			Text: fmt.Sprintf("(Weight %.2f * children BM25 %.2f)", 1.0, bm25(r, avgLen)),
			Kids: explainKids(r, func(k *result) *ScoreExplain { return explainBM25Rec(k, avgLen) }),
		}
	case r.freq != 0:
		return &ScoreExplain{Text: fmt.Sprintf("(%.2f = Weight %.2f * F %d / (F %d + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len %.2f)))",
			bm25(r, avgLen), 1.0, r.freq, r.freq, avgLen)}
	}
	return &ScoreExplain{Text: "Frequency 0 -> value 0"}
}

func explainBM25StdRec(r *result, docLen uint32, avgLen float64) *ScoreExplain {
	line := func(term string, idf, f float64) *ScoreExplain {
		return &ScoreExplain{Text: fmt.Sprintf("%s: (%.2f = IDF %.2f * (F %.2f * (k1 1.2 + 1)) / (F %.2f + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len %d / Average Doc Len %.2f)))",
			term, bm25stdTerm(idf, f, docLen, avgLen), idf, f, f, docLen, avgLen)}
	}
	switch {
	case r.kind == resTerm:
		return line(r.term, r.bidf, float64(r.freq))
	case r.isAgg():
		sum := 0.0
		for _, k := range r.kids {
			sum += bm25std(k, docLen, avgLen)
		}
		return &ScoreExplain{
			Text: fmt.Sprintf("(Weight %.2f * children BM25 %.2f)", r.w(), sum),
			Kids: explainKids(r, func(k *result) *ScoreExplain { return explainBM25StdRec(k, docLen, avgLen) }),
		}
	case r.kind == resVirtual && r.freq != 0 && r.w() != 0:
		return line("*", 1, 1)
	}
	return &ScoreExplain{Text: "Irrelevant token -> score is 0"}
}

// explainDismax is DISMAX's explanation (no final line).
func explainDismax(r *result) *ScoreExplain {
	if r.isAgg() {
		return &ScoreExplain{
			Text: fmt.Sprintf("%.2f = Weight %.2f * children DISMAX %.2f", dismax(r), 1.0, dismax(r)),
			Kids: explainKids(r, explainDismax),
		}
	}
	return &ScoreExplain{Text: fmt.Sprintf("DISMAX %.2f = Weight %.2f * Frequency %d", float64(r.freq), 1.0, r.freq)}
}
