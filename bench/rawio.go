package main

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawWrite and rawRead are write(2) and read(2) without the Go runtime's
// syscall bookkeeping (entersyscall/exitsyscall, which lets another thread
// take the P while the call blocks). The load generator's sockets are
// non-blocking, so these calls never block and the bookkeeping is pure
// overhead per request.
func rawWrite(fd int, p []byte) (int, error) { return rawIO(unix.SYS_WRITE, fd, p) }

func rawRead(fd int, p []byte) (int, error) { return rawIO(unix.SYS_READ, fd, p) }

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
