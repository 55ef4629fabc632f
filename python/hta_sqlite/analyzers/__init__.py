"""HTA's hta.analyzers modules that notebooks import: critical_path_analysis (CPGraph,
restore_cpgraph) and cupti_counter_analysis (CUDA_SASS_INSTRUCTION_COUNTER_FLOPS)."""
