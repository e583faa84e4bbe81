package pt

// AuxFreeAnnotated implements pmu.AuxFreeAnnotated: pt_buffer_free_aux()
// frees the buffer's ToPA tables and the struct pt_buffer, the area's
// aux_priv, which no one else reaches once perf_pmu_output_stop() stopped
// its writers (the model's FreeAux does nothing): rb_free_aux()'s
// annotation of aux_priv covers it.
// arch/x86/events/intel/pt.c: pt_buffer_free_aux()
func (p *PMU) AuxFreeAnnotated() bool { return true }
