"""Reading what users hand us: JSON parsed with a nesting cap (``capped_json``), shared by the
scenario upload, the HELM importer, dossier JSON (CLI, Dossiers page) and exported-dossier import.

Why a room and not a flat module: it is a guard on untrusted input, not part of any one
importer, and the checks that follow it in each caller stay with that caller. The face imports
nothing.
"""
