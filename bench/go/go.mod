module zchan/bench/go

go 1.19
