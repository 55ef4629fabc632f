"""HTA's hta.analyzers.critical_path_analysis names that notebooks import.

    from hta_sqlite.analyzers.critical_path_analysis import CPGraph, restore_cpgraph
    cp_graph, ok = analyzer.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=1)
    zip_file = cp_graph.save(out_dir="/tmp/my_cp_graph")          # -> "/tmp/my_cp_graph.zip"
    again = restore_cpgraph(zip_filename=zip_file, t_full=analyzer.t, rank=0)
    again.summary()

The graph and its methods live in hta_sqlite._critical_path (requirements CP-n there);
this module gives them HTA's import path.
"""

from .._critical_path import CPEdge, CPGraph, restore_cpgraph

__all__ = ["CPEdge", "CPGraph", "restore_cpgraph"]
