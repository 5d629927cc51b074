"""Who is acting, what they may do, and the key their sign-offs are signed with.

Why its own subpackage: every other stage records *who* (a save's author, a decision's chair, a
sign-off's signer) and must refuse what that person may not do, whichever face they use (a page, the
CLI, the demo). The pages read the login (``st.user``, or a trusted proxy's header through
``st.context``) and hand an ``Identity`` down; nothing here imports streamlit. Modules:

* ``identity``: the ``Identity`` value and how one is made in each mode (local, OIDC, trusted proxy,
  the CLI's service identity);
* ``config``: the deployment's settings (mode, proxy, committee membership, separation of duties)
  from ``$MEDASSURE_HOME/identity.toml`` or the environment;
* ``access``: committee roles and the checks the domain applies before a save, a decision or a sign-off;
* ``keys``: the deployment's signing key and the keyed signature (HMAC-SHA256) on sign-offs.
"""
