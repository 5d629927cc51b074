"""Who is acting, what they may do, and the key their sign-offs are signed with.

Why its own subpackage: every other stage records *who* (a save's author, a decision's chair, a
sign-off's signer) and must refuse what that person may not do, whichever face they use (a page, the
CLI, the demo). The pages read the login (``st.user``, or a trusted proxy's header through
``st.context``) and hand an ``Identity`` down; nothing here imports streamlit. Modules:

* ``actor``: the ``Actor`` every operation takes (who acts, how it was established, the name recorded);
* ``identity``: the ``Identity`` value and how one is made in each mode (local, OIDC, trusted proxy,
  the CLI's service identity);
* ``proxy_chain``: the client behind a chain of proxies (``X-Forwarded-For`` counted from the right) and
  whether the chain may vouch for the identity header;
* ``config``: the deployment's settings (mode, proxy, committee membership, separation of duties)
  from ``$MEDASSURE_HOME/identity.toml`` or the environment;
* ``access``: committee roles and the checks the domain applies before a save, a decision or a sign-off;
* ``keys``: the deployment's signing key and the keyed signature (HMAC-SHA256) on sign-offs.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "Actor": "governance.identity.actor",
    "Access": "governance.identity.access",
    "PermissionDenied": "governance.identity.access",
    "access_for": "governance.identity.access",
    "IdentityConfig": "governance.identity.config",
    "IdentityConfigError": "governance.identity.config",
    "load_config": "governance.identity.config",
    "identity_configured": "governance.identity.config",
    "server_rewrites_forwarded_for": "governance.identity.config",
    "Identity": "governance.identity.identity",
    "command_line_identity": "governance.identity.identity",
    "direct_peer": "governance.identity.identity",
    "is_placeholder_name": "governance.identity.identity",
    "local_identity": "governance.identity.identity",
    "oidc_identity": "governance.identity.identity",
    "proxy_identity": "governance.identity.identity",
    "resolve_proxy_chain": "governance.identity.proxy_chain",
    "require": "governance.identity.operations.authorize",
    "written_versions": "governance.identity.operations.receipts",
    "save_as": "governance.identity.operations.save",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "Access", "Actor", "Identity", "IdentityConfig", "IdentityConfigError", "PermissionDenied",
    "access_for", "command_line_identity", "direct_peer", "identity_configured", "is_placeholder_name",
    "load_config",
    "local_identity", "oidc_identity", "proxy_identity", "require", "resolve_proxy_chain", "save_as",
    "server_rewrites_forwarded_for", "written_versions",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
