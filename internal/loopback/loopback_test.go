package loopback

import "testing"

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8080": true, "LOCALHOST.": true, "app.localhost:80": true,
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.1.2.3:1": true, "[::1]:8080": true, "::1": true,
		"[::ffff:127.0.0.1]:80": true,
		"":                      false, "evil.example": false, "evil.example:8080": false, "localhost.evil.example": false,
		"10.0.0.1:80": false, "[::2]:80": false, "0.0.0.0:8080": false, "127.0.0.1.evil.example": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
