//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

var errNoAffinity = errors.New("binding processes to CPUs is only supported on Linux")

// splitCPUs fails where processes cannot be bound to CPUs.
func splitCPUs([]int) ([]int, error) { return nil, errNoAffinity }

// startPinned fails where processes cannot be bound to CPUs.
func startPinned(*exec.Cmd, []int) error { return errNoAffinity }

// pinSelf fails where processes cannot be bound to CPUs.
func pinSelf([]int) error { return errNoAffinity }
