package mention

import (
	"os"
	"testing"
)

// BenchmarkParse parses a real 5 KB agent answer (testdata/agent.md).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/agent.md")
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	if len(Parse(text).Mentions) == 0 {
		b.Fatal("no mentions")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(text)
	}
}

// BenchmarkSentences splits the same answer into sentences.
func BenchmarkSentences(b *testing.B) {
	data, err := os.ReadFile("testdata/agent.md")
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Sentences(text)
	}
}
