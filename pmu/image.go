package pmu

import (
	"sort"

	"perfsim/mm"
	"perfsim/sched"
)

// The synthetic executable images the model's addresses point into: every
// named frame (a user stack frame of a task's program, a kernel function the
// model samples in) is a function of ImageSlotSize bytes, a loop
//
//	f:	inc %rax	// 48 ff c0
//		jne 1f		// 75 01: a conditional branch, taken (a TNT bit)
//		int3		// cc (never reached)
//	1:	jmp *%rbx	// ff e3: an indirect branch back to f (a TIP)
//
// padded with int3. The user functions fill the text page of the image an
// exec maps (mm: LoadELF, text at ImageBase+PageSize, page offset 1); the
// kernel's start at _text. perftool writes them as ELF files the real perf
// reads (perftool/image.go), and Intel PT traces a task as iterations of
// the loop of the frame it is in (pmu/pt: a TNT bit and a TIP each), so a
// decoder walking trace that is not the task's (stale bytes of another
// lap, torn at any byte) meets a packet the code does not allow.
const (
	ImageSlotSize     = 16
	ImageLoopInsns    = 3 // instructions per iteration: inc, jne, jmp
	ImageLoopBranches = 2 // taken branches per iteration: jne, jmp
	// ImageLoopJmp is the offset of the indirect jump in a function.
	ImageLoopJmp = 6
	// UserText is where the user functions start: the text VMA of the
	// image an exec maps; UserTextSize its length.
	UserText     = mm.ImageBase + mm.PageSize
	UserTextSize = mm.PageSize
	// KernelText is _text (the kernel MMAP's start and pgoff);
	// KernelTextSize the room given to the kernel's functions.
	KernelText     = 0xffffffff81000000
	KernelTextSize = 0x10000
)

// ImageFuncCode is the code of every function of the images.
var ImageFuncCode = [ImageSlotSize]byte{0x48, 0xff, 0xc0, 0x75, 0x01, 0xcc, 0xff, 0xe3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc}

// Frame is a function of a synthetic image: its name and address.
type Frame struct {
	Name string
	Addr uint64
}

// images places named frames in the slots of the two images: the slot the
// name's FNV-1a hash picks, or the next free one after it (a name keeps the
// address it got first). A full image gives every further name its hash
// slot, shared.
type images struct {
	user, kernel map[uint64]string // slot address -> name
}

func (im *images) place(name string, kernel bool) uint64 {
	base, n, used := im.geometry(kernel)
	if *used == nil {
		*used = map[uint64]string{}
	}
	h := imageHash(name)
	for i := uint64(0); i < n; i++ {
		ip := base + (h+i)%n*ImageSlotSize
		if _, taken := (*used)[ip]; !taken {
			(*used)[ip] = name
			return ip
		}
	}
	return base + h%n*ImageSlotSize
}

// geometry is an image's first slot, its number of slots and its table.
func (im *images) geometry(kernel bool) (base, n uint64, used *map[uint64]string) {
	if kernel {
		return KernelText, KernelTextSize / ImageSlotSize, &im.kernel
	}
	return UserText, UserTextSize / ImageSlotSize, &im.user
}

// imageHash is the FNV-1a hash of a frame's name: its first slot.
func imageHash(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// ImageFrames are the functions placed so far in the user image (kernel
// false) or the kernel's, by address.
func (k *Kernel) ImageFrames(kernel bool) []Frame {
	used := k.images.user
	if kernel {
		used = k.images.kernel
	}
	out := make([]Frame, 0, len(used))
	for ip, name := range used {
		out = append(out, Frame{Name: name, Addr: ip})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// TaskIP is the address task t (nil: the idle task) executes at in user
// mode (user) or in the kernel: its innermost user frame, or the kernel
// function it is in (the syscall, the innermost kernel frame, or the exit to
// user mode).
func (k *Kernel) TaskIP(t *sched.Task, user bool) uint64 {
	if t == nil {
		return k.fakeIP("default_idle", true)
	}
	if user {
		return k.userIP(t)
	}
	return k.fakeIP(kernelFrame(t), true)
}

// kernelFrame names the kernel function t is in.
func kernelFrame(t *sched.Task) string {
	name := t.Syscall
	if n := len(t.KernelStack); n > 0 {
		name = t.KernelStack[n-1]
	}
	if name == "" {
		name = "exit_to_user_mode"
	}
	return name
}

// ImageLoopAt reports whether ip is the start of a function of the images
// (a slot of the user or kernel text): where the loop's code is.
func ImageLoopAt(ip uint64) bool {
	in := func(base, size uint64) bool { return ip >= base && ip < base+size && (ip-base)%ImageSlotSize == 0 }
	return in(UserText, UserTextSize) || in(KernelText, KernelTextSize)
}
