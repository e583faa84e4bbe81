package faultinject

// Site is an allocation the model can fail: the kernel function that makes
// it, the allocation, and what the caller returns when it fails.
type Site struct {
	Name  string
	Where string // the allocation in the kernel source
	Err   string // what the failing caller returns
	Help  string // which calls reach it
}

// Sites are the allocations a rule may name.
var Sites = []Site{
	{"perf_event_alloc", "kernel/events/core.c: perf_event_alloc(): kmem_cache_alloc_node(perf_event_cache, GFP_KERNEL | __GFP_ZERO)",
		"-ENOMEM", "every event made: perf_event_open(), and each event a fork inherits (inherit_event(): the fork fails)"},
	{"alloc_perf_context", "kernel/events/core.c: alloc_perf_context(): kzalloc(sizeof(struct perf_event_context))",
		"-ENOMEM", "the first event of a task: find_get_context() in perf_event_open(), inherit_task_group() in a fork (the fork fails)"},
	{"find_get_pmu_context", "kernel/events/core.c: find_get_pmu_context(): kzalloc_obj(*epc), made before the lookup of a task context's pmu_ctx_list",
		"-ENOMEM", "every event on a task context: perf_event_open(), inherit_event() (the fork fails)"},
	{"alloc_callchain_buffers", "kernel/events/callchain.c: alloc_callchain_buffers(): kzalloc() of callchain_cpus_entries and each CPU's kmalloc_node(), made by the first event that samples callchains (nr_callchain_events 0 -> 1)",
		"-ENOMEM", "perf_event_open() of an event with PERF_SAMPLE_CALLCHAIN while no other has one: perf_event_alloc() -> get_callchain_buffers() (the open fails)"},
	{"perf_trace_event_reg", "kernel/trace/trace_event_perf.c: perf_trace_event_reg(): alloc_percpu(struct hlist_head) of tp_event->perf_events (call 1), then, when no tracepoint has a perf user (total_ref_count == 0), alloc_percpu(perf_trace_t) of perf_trace_buf[] (call 2)",
		"-ENOMEM", "the first perf event on a tracepoint: perf_event_open() -> perf_tp_event_init() -> perf_trace_init() (the open fails)"},
	{"perf_event_set_filter", "kernel/events/core.c: perf_event_set_filter(): strndup_user(arg, PAGE_SIZE) of the filter string (memdup_user(): kmalloc)",
		"-ENOMEM", "ioctl(PERF_EVENT_IOC_SET_FILTER) of a tracepoint event or of one whose PMU has address filters, under ctx->mutex (nothing to undo)"},
	{"ftrace_profile_set_filter", "kernel/trace/trace_events_filter.c: ftrace_profile_set_filter() -> create_filter(): the struct event_filter, its string and its program",
		"-ENOMEM", "ioctl(PERF_EVENT_IOC_SET_FILTER) of a tracepoint event without a filter (__free_filter() frees what was made; event->filter stays unset)"},
	{"perf_event_parse_addr_filter", "kernel/events/core.c: perf_event_parse_addr_filter(): kstrdup() of the string (call 1), each filter's perf_addr_filter_new() kzalloc, each file source's match_strdup() of its name",
		"-ENOMEM (-EINVAL when perf_addr_filter_new() fails: ret still holds the loop's -EINVAL)", "ioctl(PERF_EVENT_IOC_SET_FILTER) of an address-filter event (intel_pt, cs_etm); fail: free_filters_list(), then fail_clear_files: nr_file_filters = 0"},
	{"rb_alloc", "kernel/events/ring_buffer.c: rb_alloc(): the struct perf_buffer and its pages",
		"-ENOMEM", "mmap() of an event's data pages that makes a new buffer (perf_mmap_rb())"},
	{"rb_alloc_aux", "kernel/events/ring_buffer.c: rb_alloc_aux(): kcalloc_node() of rb->aux_pages",
		"-ENOMEM", "the first mmap() of a buffer's AUX area (perf_mmap_aux())"},
	{"pt_buffer_setup_aux", "arch/x86/events/intel/pt.c: pt_buffer_setup_aux(): kzalloc_node() of the struct pt_buffer (call 1), then pt_buffer_init_topa()'s ToPA tables (call 2: the driver kfree()s the buffer); NULL from setup_aux makes rb_alloc_aux() free the AUX pages it allocated (__rb_free_aux())",
		"-ENOMEM", "the first mmap() of an intel_pt event's AUX area (perf_mmap_aux() -> rb_alloc_aux() -> pmu->setup_aux)"},
	{"etm_setup_aux", "drivers/hwtracing/coresight/coresight-etm-perf.c: etm_setup_aux(): alloc_event_data()'s kzalloc() and alloc_percpu() (call 1), then the sink's alloc_buffer() (call 2: goto err, etm_free_aux() frees the event data); NULL from setup_aux makes rb_alloc_aux() free the AUX pages it allocated (__rb_free_aux())",
		"-ENOMEM", "the first mmap() of a cs_etm event's AUX area (perf_mmap_aux() -> rb_alloc_aux() -> pmu->setup_aux)"},
	// copy_process()'s allocations after perf_event_init_task(), in its
	// order: each failure unwinds through bad_fork_cleanup_perf
	// (perf_event_free_task() of the child's inherited events).
	{"dup_fd", "fs/file.c: dup_fd(): kmem_cache_alloc(files_cachep) of the child's files_struct (copy_files())",
		"-ENOMEM", "fork() without CLONE_FILES: copy_process() -> copy_files(), after perf_event_init_task() (the fork fails: perf_event_free_task())"},
	{"copy_fs_struct", "fs/fs_struct.c: copy_fs_struct(): kmem_cache_alloc(fs_cachep) (copy_fs())",
		"-ENOMEM", "fork() without CLONE_FS: copy_process() -> copy_fs(), after copy_files() (the fork fails: perf_event_free_task())"},
	{"copy_sighand", "kernel/fork.c: copy_sighand(): kmem_cache_alloc(sighand_cachep)",
		"-ENOMEM", "fork() without CLONE_SIGHAND: copy_process() -> copy_sighand(), after copy_fs() (the fork fails: perf_event_free_task())"},
	{"copy_signal", "kernel/fork.c: copy_signal(): kmem_cache_zalloc(signal_cachep)",
		"-ENOMEM", "fork() without CLONE_THREAD: copy_process() -> copy_signal(), after copy_sighand() (the fork fails: perf_event_free_task())"},
	{"dup_mm", "kernel/fork.c: dup_mm(): allocate_mm(), kmem_cache_alloc(mm_cachep), before dup_mmap() copies anything (copy_mm())",
		"-ENOMEM", "fork() without CLONE_VM: copy_process() -> copy_mm(), after copy_signal() (the fork fails: perf_event_free_task())"},
	{"alloc_pid", "kernel/pid.c: alloc_pid(): kmem_cache_alloc(ns->pid_cachep) of the struct pid, before a number is taken",
		"-ENOMEM", "every fork and thread: copy_process() -> alloc_pid(), after copy_mm() and copy_thread() (the fork fails: perf_event_free_task())"},
	{"remap_pfn_range", "kernel/events/core.c: map_range(): remap_pfn_range() -> __pte_alloc(): a page table page (GFP_PGTABLE_USER)",
		"-ENOMEM", "every perf mmap() that got its buffer: map_range() puts its pages in the page table"},
}

var siteIndex = func() map[string]int {
	m := map[string]int{}
	for i, s := range Sites {
		m[s.Name] = i
	}
	return m
}()

// SiteNames returns the sites' names, in Sites order.
func SiteNames() []string {
	out := make([]string, len(Sites))
	for i, s := range Sites {
		out[i] = s.Name
	}
	return out
}

// Known reports whether name is a site a rule may name: one of Sites, or
// AnySite.
func Known(name string) bool {
	_, ok := siteIndex[name]
	return ok || name == AnySite
}
