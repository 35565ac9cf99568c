module github.com/hotkv/hotkv

go 1.26.8

require (
	github.com/blevesearch/snowballstem v0.9.0
	github.com/tidwall/btree v1.8.2
	github.com/yuin/gopher-lua v1.1.2
)

replace github.com/yuin/gopher-lua => ./third_party/gopher-lua
