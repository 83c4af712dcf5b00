// A TLS-terminating proxy that requires and verifies client certificates, in front of the Temporal
// dev server's plain gRPC port: the stack's mTLS Temporal endpoint (components/temporal-tls.ts).
// Go's crypto/tls, as in Temporal's own frontend, so a refused client sees the alerts a real mTLS
// frontend sends: "certificate required" (none given), "unknown ca" (another CA), "certificate
// expired", "bad certificate". After the handshake the bytes are spliced to the upstream, which
// speaks HTTP/2 with prior knowledge (h2c) as gRPC does. A second listener (-listen-apikey) also
// requires `authorization: Bearer <key>` on every gRPC call, as Temporal Cloud does for API keys:
// an HTTP/2 reverse proxy to the same upstream that answers a missing or wrong key with gRPC
// UNAUTHENTICATED. Standard library only. Dev tooling.
package main

import (
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:7250", "address to listen on (TLS)")
	upstream := flag.String("upstream", "127.0.0.1:7233", "plain gRPC address of the Temporal frontend")
	caFile := flag.String("ca", "", "PEM of the CA whose client certificates are accepted")
	certFile := flag.String("cert", "", "PEM of the server certificate")
	keyFile := flag.String("key", "", "PEM of the server key")
	listenAPIKey := flag.String("listen-apikey", "", "second address (TLS + client certificate + API key); empty: none")
	apiKeyFile := flag.String("api-key-file", "", "file holding the API key the second address requires")
	flag.Parse()

	pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		log.Fatalf("server certificate: %v", err)
	}
	caPem, err := os.ReadFile(*caFile)
	if err != nil {
		log.Fatalf("client CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPem) {
		log.Fatalf("client CA: no certificate in %s", *caFile)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{pair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2"},
	}
	ln, err := tls.Listen("tcp", *listen, cfg)
	if err != nil {
		log.Fatalf("listen %s: %v", *listen, err)
	}
	log.Printf("mTLS proxy %s -> h2c %s", *listen, *upstream)
	if *listenAPIKey != "" {
		go serveAPIKey(*listenAPIKey, *upstream, *apiKeyFile, cfg.Clone())
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ln.Close()
		os.Exit(0)
	}()

	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatalf("accept: %v", err)
		}
		go serve(c.(*tls.Conn), *upstream)
	}
}

func serve(c *tls.Conn, upstream string) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := c.Handshake(); err != nil {
		log.Printf("refused %s: %v", c.RemoteAddr(), err)
		return
	}
	c.SetDeadline(time.Time{})
	peer := c.ConnectionState().PeerCertificates
	log.Printf("accepted %s: %s", c.RemoteAddr(), peer[0].Subject)
	up, err := net.Dial("tcp", upstream)
	if err != nil {
		log.Printf("upstream %s: %v", upstream, err)
		return
	}
	defer up.Close()
	var once sync.Once
	done := make(chan struct{})
	closeBoth := func() { once.Do(func() { close(done) }) }
	go func() { io.Copy(up, c); closeBoth() }()
	go func() { io.Copy(c, up); closeBoth() }()
	<-done
}

// serveAPIKey: mTLS as above, then every request must carry `authorization: Bearer <key>`; the rest
// goes through an HTTP/2 reverse proxy to the h2c upstream (trailers and streaming as gRPC needs).
func serveAPIKey(listen, upstream, keyFile string, cfg *tls.Config) {
	raw, err := os.ReadFile(keyFile)
	if err != nil {
		log.Fatalf("api key: %v", err)
	}
	want := []byte("Bearer " + strings.TrimSpace(string(raw)))
	target, _ := url.Parse("http://" + upstream)
	rp := httputil.NewSingleHostReverseProxy(target)
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	rp.Transport = &http.Transport{Protocols: &h2c}
	rp.FlushInterval = -1
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			log.Printf("unauthenticated %s %s (authorization header present: %t)", r.RemoteAddr, r.URL.Path, r.Header.Get("Authorization") != "")
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", "16")
			w.Header().Set("Grpc-Message", "invalid API key")
			w.WriteHeader(http.StatusOK)
			return
		}
		rp.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		log.Fatalf("listen %s: %v", listen, err)
	}
	log.Printf("mTLS + API key proxy %s -> h2c %s", listen, upstream)
	srv := &http.Server{Handler: handler, TLSConfig: cfg, ErrorLog: log.Default()}
	log.Fatal(srv.ServeTLS(ln, "", ""))
}
