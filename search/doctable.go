package search

// docTable maps document ids to documents: pages of docPageSize slots,
// made as ids reach them and dropped once none of their documents is
// left (ids only grow: a rewritten hash is a new document), so that it
// holds about what the live documents need; a lookup is two loads, and
// the ids of a posting list, ascending, walk it in order.
type docTable struct {
	pages []*docPage // by id / docPageSize; nil: no live document
}

const docPageSize = 1024

type docPage struct {
	docs [docPageSize]*document
	// meta is what the default scorer reads of each document, beside
	// the pointers: a search's walk in id order stays in the page.
	meta [docPageSize]docMeta
	live int
}

// docMeta is a document's score and largest term frequency.
type docMeta struct {
	score   float64
	maxFreq uint32
}

// getMeta returns the scorer's view of the document of id, and whether
// there is one.
func (t *docTable) getMeta(id uint32) (docMeta, bool) {
	p := int(id / docPageSize)
	if p >= len(t.pages) || t.pages[p] == nil || t.pages[p].docs[id%docPageSize] == nil {
		return docMeta{}, false
	}
	return t.pages[p].meta[id%docPageSize], true
}

// get returns the document of id, or nil.
func (t *docTable) get(id uint32) *document {
	p := int(id / docPageSize)
	if p >= len(t.pages) || t.pages[p] == nil {
		return nil
	}
	return t.pages[p].docs[id%docPageSize]
}

// set makes d the document of id.
func (t *docTable) set(id uint32, d *document) {
	p := int(id / docPageSize)
	for p >= len(t.pages) {
		t.pages = append(t.pages, nil)
	}
	pg := t.pages[p]
	if pg == nil {
		pg = &docPage{}
		t.pages[p] = pg
	}
	if pg.docs[id%docPageSize] == nil {
		pg.live++
	}
	pg.docs[id%docPageSize] = d
	pg.meta[id%docPageSize] = docMeta{d.score, d.maxFreq}
}

// del removes the document of id.
func (t *docTable) del(id uint32) {
	p := int(id / docPageSize)
	if p >= len(t.pages) || t.pages[p] == nil || t.pages[p].docs[id%docPageSize] == nil {
		return
	}
	pg := t.pages[p]
	pg.docs[id%docPageSize] = nil
	if pg.live--; pg.live == 0 {
		t.pages[p] = nil
	}
}

// each calls fn with the documents in id order.
func (t *docTable) each(fn func(d *document)) {
	for _, pg := range t.pages {
		if pg == nil {
			continue
		}
		for _, d := range pg.docs {
			if d != nil {
				fn(d)
			}
		}
	}
}
