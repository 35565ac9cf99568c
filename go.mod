module github.com/hotkv/hotkv

go 1.26.8
