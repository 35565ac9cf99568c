package search

// FT.CREATE's FILTER, as RediSearch 2.10 applies it: the expression (the
// language of FT.AGGREGATE's APPLY) is evaluated over each hash written
// under one of the index's prefixes, before it is indexed. Its properties
// are the hash's fields as strings — a schema field by its alias (reading
// the hash field it names), any other name as the hash field of that
// name, and @__key the key. The hash is a document of the index when the
// expression is true, and also when its evaluation fails (a property the
// hash does not have, a function's error): RediSearch only leaves out a
// hash whose filter evaluates, without error, to false. A property that
// is the hash field of a schema field known by another alias is one
// RediSearch cannot load: no hash passes such a filter.
//
// The filter decides membership only: which keys an index follows, and so
// which indexes a write locks, is still decided by the prefixes alone.

// compiledFilter is a parsed FILTER with its properties resolved against
// the schema.
type compiledFilter struct {
	e *expr
	// fields are the hash fields the properties read, by lookup key;
	// keyProp marks @__key.
	fields  []string
	keyProp []bool
	// never: a property RediSearch cannot load (see above).
	never bool
}

// underscoreKey is the property that holds a document's key.
const underscoreKey = "__key"

// resolve gives each property of the filter its lookup key and the hash
// field it reads.
func (c *compiledFilter) resolve(s *Schema) {
	c.fields, c.keyProp, c.never = nil, nil, false
	byName := map[string]int{}
	c.e.properties(func(e *expr) error {
		if k, ok := byName[e.name]; ok {
			e.key = k
			return nil
		}
		e.key = len(c.fields)
		byName[e.name] = e.key
		field, isKey := e.name, false
		if f := s.Field(e.name); f != nil {
			field = f.Name
		} else if e.name == underscoreKey {
			isKey = true
		} else {
			for _, f := range s.Fields {
				if f.Name == e.name {
					c.never = true
				}
			}
		}
		c.fields = append(c.fields, field)
		c.keyProp = append(c.keyProp, isKey)
		return nil
	})
}

// passes reports whether the hash at key, whose fields get returns, is a
// document of the index.
func (c *compiledFilter) passes(key string, get func(field string) ([]byte, bool)) bool {
	if c.never {
		return false
	}
	vals := make([]Value, len(c.fields))
	for i, f := range c.fields {
		if c.keyProp[i] {
			vals[i] = strVal(key)
		} else if v, ok := get(f); ok {
			vals[i] = strVal(string(v))
		}
	}
	v, err := c.e.eval(func(k int) Value { return vals[k] }, func(k int) string { return c.fields[k] })
	return err != nil || v.truthy()
}

// Passes reports whether the hash at key, whose fields get returns, is a
// document of the index: true unless the schema's FILTER says otherwise.
func (s *Schema) Passes(key string, get func(field string) ([]byte, bool)) bool {
	return s.filter == nil || s.filter.passes(key, get)
}
