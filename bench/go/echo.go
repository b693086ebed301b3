package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// echoServe serves row 16's Go echo server on 127.0.0.1:port (0: any free port): a
// goroutine per connection copying what it reads back (io.Copy), on GOMAXPROCS = the
// number of CPUs. Prints "port N" once listening; runs until killed, or for seconds > 0.
func echoServe(port, seconds int) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintf(os.Stderr, "zchan-peers-go: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("port %d\n", ln.Addr().(*net.TCPAddr).Port)
	if seconds > 0 {
		time.AfterFunc(time.Duration(seconds)*time.Second, func() { os.Exit(0) })
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			continue
		}
		go func(c net.Conn) {
			defer c.Close()
			io.Copy(c, c)
		}(conn)
	}
}
