// Command delayproxy forwards TCP connections to a server, holding every
// chunk of bytes, each way, for a fixed delay: a network's round trip on
// the loopback, to measure how many a hook waits on (see
// scripts/pg-hook-latency.sh).
//
//	go run ./scripts/delayproxy -target 127.0.0.1:5432 -delay 5ms
//
// It prints the address it listens on.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	target := flag.String("target", "", "address to forward to")
	delay := flag.Duration("delay", time.Millisecond, "delay each way (a round trip waits twice this)")
	flag.Parse()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	// The address on stdout, for a script that asked for any port.
	fmt.Println(l.Addr())
	for {
		c, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			t, err := net.Dial("tcp", *target)
			if err != nil {
				log.Print(err)
				c.Close()
				return
			}
			go forward(t, c, *delay)
			forward(c, t, *delay)
		}()
	}
}

// forward copies src to dst, each chunk written delay after it was read,
// in order; it closes dst when src ends.
func forward(dst, src net.Conn, delay time.Duration) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	ch := make(chan chunk, 1024)
	go func() {
		defer dst.Close()
		for c := range ch {
			time.Sleep(time.Until(c.at))
			if _, err := dst.Write(c.b); err != nil {
				return
			}
		}
	}()
	defer close(ch)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			ch <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(delay)}
		}
		if err != nil {
			return
		}
	}
}
