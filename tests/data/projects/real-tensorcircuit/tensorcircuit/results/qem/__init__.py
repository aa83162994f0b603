from . import qem_methods

apply_zne = qem_methods.apply_zne
zne_option = qem_methods.zne_option  # type: ignore

apply_dd = qem_methods.apply_dd
dd_option = qem_methods.dd_option  # type: ignore
used_qubits = qem_methods.used_qubits
prune_ddcircuit = qem_methods.prune_ddcircuit
add_dd = qem_methods.add_dd

apply_rc = qem_methods.apply_rc
rc_circuit = qem_methods.rc_circuit
rc_candidates = qem_methods.rc_candidates
