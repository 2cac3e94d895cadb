package store

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// An SQLite store keeps each verification's report and request
// compressed (zstd, its fastest level): they are most of a row, JSON of
// a few kilobytes that compresses about fourfold. They are compressed by
// the caller's goroutine before the write is queued, not by the writer,
// and decompressed when read. PostgreSQL compresses them itself (TOAST),
// so its rows hold them as they are. A row written before compression
// holds its JSON as it is; the two are told apart by zstd's frame magic,
// which no JSON text starts with.

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// packMin is the smallest blob worth compressing.
const packMin = 256

var (
	packer = func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<17), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic("store: zstd encoder: " + err.Error())
		}
		return e
	}()
	unpacker = func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxUnpacked))
		if err != nil {
			panic("store: zstd decoder: " + err.Error())
		}
		return d
	}()
)

// maxUnpacked bounds what a stored blob may decompress to: more than any
// request or report the server accepts.
const maxUnpacked = 1 << 30

// pack returns b compressed, or b itself when it is short or does not
// shrink.
func pack(b []byte) []byte {
	if len(b) < packMin {
		return b
	}
	c := packer.EncodeAll(b, make([]byte, 0, len(b)/3))
	if len(c) >= len(b) {
		return b
	}
	return c
}

// unpack returns what a stored blob holds: decompressed when pack
// compressed it, as it is otherwise.
func unpack(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, zstdMagic) {
		return b, nil
	}
	out, err := unpacker.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("a compressed blob: %w", err)
	}
	return out, nil
}
