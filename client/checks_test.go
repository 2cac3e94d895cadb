package client_test

// The built-in check types, which a program registers in its main (the
// server itself registers none).
import _ "github.com/vouchgate/vouch/check/all"
