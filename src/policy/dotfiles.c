#include "policy/dotfiles.h"

#include <string.h>

#include "common/util.h"

static const struct dot_file list[] = {
    {".git", "git runs its hooks and config"},
    {".gitmodules", "git fetches and checks out what it names"},
    {".gitattributes", "git runs the filters and diff drivers it names"},
    {".github", "CI runs its workflows with your tokens"},
    {".husky", "git hooks installed by husky"},
    {".pre-commit-config.yaml", "pre-commit runs the hooks it names"},
    {".envrc", "direnv runs it when you cd into the folder"},
    {".direnv", "direnv's cache, loaded by .envrc"},
    {".vscode", "the editor runs its tasks and settings"},
    {".idea", "the editor runs its run configurations"},
    {".mcp.json", "agents start the servers it names"},
    {".lnk", "lnk's own settings"},
    {".npmrc", "npm reads scripts and registries from it"},
    {".bashrc", "bash runs it"},
    {".bash_profile", "bash runs it at login"},
    {".bash_login", "bash runs it at login"},
    {".bash_logout", "bash runs it at logout"},
    {".profile", "the login shell runs it"},
    {".zshrc", "zsh runs it"},
    {".zshenv", "zsh runs it for every shell"},
    {".zprofile", "zsh runs it at login"},
    {".zlogin", "zsh runs it at login"},
    {".config", "programs read their settings from it"},
    {".local", "programs and shells run what it holds"},
    {".ssh", "ssh reads keys and config from it"},
    {".gnupg", "gpg reads keys and config from it"},
    /* Attacked in tests/e2e/test_inv8_runs_outside.py: each runs code
     * outside the sandbox when it appears at the top of a project or of
     * the home folder. */
    {".claude", "Claude Code runs the hooks in its settings"},
    {".cursor", "Cursor starts the MCP servers it names"},
    /* Coding agents run later in the project, outside any sandbox, start
     * the MCP servers (commands) its config names, or run the commands it
     * sets. */
    {".gemini", "Gemini CLI starts the MCP servers of its settings"},
    {".qwen", "Qwen Code starts the MCP servers of its settings"},
    {".codex", "Codex starts the MCP servers of its config"},
    {"opencode.json", "OpenCode starts the MCP servers it names"},
    {"opencode.jsonc", "OpenCode starts the MCP servers it names"},
    {".opencode", "OpenCode starts the MCP servers of its config"},
    {".kiro", "Kiro starts the MCP servers of its settings"},
    {".amazonq", "Amazon Q starts the MCP servers it names"},
    {".roo", "Roo Code starts the MCP servers it names"},
    {".continue", "Continue starts the MCP servers it names"},
    {".junie", "Junie starts the MCP servers it names"},
    {"crush.json", "Crush starts the MCP servers and LSPs it names"},
    {".crush.json", "Crush starts the MCP servers and LSPs it names"},
    {".aider.conf.yml", "aider runs the lint and test commands it sets"},
    {".devcontainer", "the editor builds and runs the container it names"},
    {".mise.toml", "mise runs its hooks when you cd into the folder"},
    {".yarnrc.yml", "yarn runs the yarnPath script it names"},
    {".gitlab-ci.yml", "CI runs it with the project's tokens"},
    {".Rprofile", "R runs it when started in the folder"},
    {".gitconfig", "git runs its fsmonitor, pager and aliases"},
    {".vimrc", "vim runs it"},
    {".tmux.conf", "tmux runs the commands it holds"},
    {".inputrc", "readline binds keys to commands with it"},
    {".gdbinit", "gdb runs it"},
    {".cargo", "cargo runs the runners and aliases of its config"},
    {".docker", "docker runs the credential helpers it names"},
    {".kube", "kubectl runs the exec plugins it names"},
    {".aws", "the AWS tools run its credential_process"},
    {".pam_environment", "the login sets the environment it holds"},
    {".xprofile", "the display manager sources it"},
    /* Version control that finds a repository by a folder at the top: a
     * planted one is used (its hooks and config run) at the next command
     * there. */
    {".hg", "Mercurial runs the hooks of its hgrc"},
    {".jj", "Jujutsu uses the repository and config it holds"},
    {".sl", "Sapling runs the hooks of its config"},
    {".svn", "Subversion uses the working copy it holds"},
    {".bzr", "Breezy runs the hooks and plugins it names"},
    {".pijul", "Pijul runs the hooks of its config"},
    {"_darcs", "darcs runs the posthooks of its prefs"},
    {".fslckout", "Fossil uses the repository it names"},
    {"_FOSSIL_", "Fossil uses the repository it names"},
    /* Tool managers and their environment, run on cd. */
    {"mise.toml", "mise runs its hooks and tasks when you cd into the folder"},
    {"mise.local.toml", "mise runs its hooks when you cd into the folder"},
    {".mise.local.toml", "mise runs its hooks when you cd into the folder"},
    {".mise", "mise reads its config and tasks from it"},
    {"mise", "mise reads its config.toml and conf.d/*.toml from it"},
    {".tool-versions", "asdf and mise install and run the versions it names"},
    {".envrc.local", "direnv setups source it"},
    {".env", "direnv, mise and dotenv load it into your shell"},
    /* Git hook managers. */
    {"lefthook.yml", "lefthook runs the commands it names at each commit"},
    {".lefthook.yml", "lefthook runs the commands it names at each commit"},
    {"lefthook-local.yml", "lefthook runs the commands it names"},
    {".lefthook", "lefthook runs the scripts it holds"},
    /* lefthook reads each of its formats, with or without the dot, and
     * merges the local file of any format */
    {"lefthook.yaml", "lefthook runs the commands it names at each commit"},
    {"lefthook.toml", "lefthook runs the commands it names at each commit"},
    {"lefthook.json", "lefthook runs the commands it names at each commit"},
    {".lefthook.yaml", "lefthook runs the commands it names at each commit"},
    {".lefthook.toml", "lefthook runs the commands it names at each commit"},
    {".lefthook.json", "lefthook runs the commands it names at each commit"},
    {"lefthook-local.yaml", "lefthook runs the commands it names"},
    {"lefthook-local.toml", "lefthook runs the commands it names"},
    {"lefthook-local.json", "lefthook runs the commands it names"},
    {".lefthook-local.yml", "lefthook runs the commands it names"},
    {".lefthook-local.yaml", "lefthook runs the commands it names"},
    {".lefthook-local.toml", "lefthook runs the commands it names"},
    {".lefthook-local.json", "lefthook runs the commands it names"},
    /* Package managers. */
    {".yarnrc", "yarn runs the yarn-path script it names"},
    {".pnpmfile.cjs", "pnpm runs it at every install"},
    {".pnpmfile.mjs", "pnpm runs it at every install"},
    /* Editors that run a project's settings. */
    {".dir-locals.el", "Emacs evaluates what it sets"},
    {".exrc", "vim and nvim run it (exrc)"},
    {".gvimrc", "gvim runs it (exrc)"},
    /* vim's names without a dot: ~/_vimrc when there is no ~/.vimrc,
     * and with exrc in the folder it starts in */
    {"_vimrc", "vim runs it (in the home when there is no .vimrc; exrc)"},
    {"_gvimrc", "gvim runs it"},
    {"_exrc", "vim runs it (exrc)"},
    {".nvim.lua", "nvim runs it (exrc)"},
    {".nvimrc", "nvim runs it (exrc)"},
    {".dir-locals-2.el", "Emacs evaluates what it sets"},
    {".lvimrc", "vim's localvimrc runs it"},
    {".lazy.lua", "lazy.nvim runs it as a local plugin spec"},
    {".zed", "Zed starts the language servers and tasks it names"},
    {".helix", "Helix starts the language servers it names"},
    {".devcontainer.json", "the editor builds and runs the container it "
			   "names"},
    /* Interpreters and debuggers that run a file in the current folder. */
    {".pdbrc", "pdb runs it"},
    {".irbrc", "irb runs it"},
    {".pryrc", "pry runs it"},
    {".ghci", "ghci runs it"},
    {".octaverc", "Octave runs it"},
    {".ocamlinit", "the OCaml toplevel and utop run it"},
    {"irb.rc", "irb runs it"},
    {"_irbrc", "irb runs it"},
    {".perldb", "the Perl debugger runs it"},
    {".Renviron", "R loads it, and it names the profile R runs"},
    {".lldbinit", "lldb runs it when told to trust the folder's"},
    /* Options and code a tool on a Debian host reads from the folder it
     * starts in: Universal Ctags' option folders and Exuberant Ctags'
     * .ctags (`-f FILE --append=yes` and a regex parser write a file of
     * the program's choosing where the user can: `~/.bash_aliases`), GNU
     * GLOBAL's project config (its gtags_parser loads a shared object;
     * ggtags runs `global -u` at each save), latexmk's Perl (LaTeX
     * extensions run it at each change), valgrind's options (its report
     * written to any file). */
    {".ctags.d", "ctags takes options from it: a file written anywhere"},
    {"ctags.d", "ctags takes options from it: a file written anywhere"},
    {".ctags", "Exuberant Ctags takes options from it: a file written "
	       "anywhere"},
    {"gtags.conf", "GNU GLOBAL loads the parser plugins it names"},
    {".latexmkrc", "latexmk runs it as Perl"},
    {".valgrindrc", "valgrind takes options from it: a file written "
		    "anywhere"},
    /* A build tool's launcher settings at the project's top: Maven's
     * (jvm.config's -javaagent runs a jar; maven.config, extensions.xml;
     * an editor's Java extension runs Maven on open), git-buildpackage's
     * (postbuild, prebuild and postexport hooks are shell commands). */
    {".mvn", "mvn runs the JVM options and extensions it names"},
    {".gbp.conf", "gbp buildpackage runs the hooks it names"},
    /* sbt's JVM options (-javaagent runs a jar), the bazel bazelisk
     * downloads and runs (a base URL, a version), the interpreter PDM
     * runs, YouCompleteMe's per-project Python (run when a file is
     * opened), zsh-autoenv's scripts (sourced at each cd). */
    {".jvmopts", "sbt passes its options to the JVM (-javaagent runs a "
		 "jar)"},
    {".sbtopts", "sbt takes its options from it (-javaagent runs a jar)"},
    {".bazeliskrc", "bazelisk downloads and runs the bazel it names"},
    {".bazelversion", "bazelisk downloads and runs the bazel it names"},
    {".pdm-python", "pdm runs the interpreter it names"},
    {".ycm_extra_conf.py", "YouCompleteMe runs it when a file is opened"},
    {".autoenv.zsh", "zsh-autoenv sources it when you cd into the folder"},
    {".autoenv_leave.zsh", "zsh-autoenv sources it when you leave the "
			   "folder"},
    /* Editors' and language servers' per-project settings that start
     * programs when the folder opens: sbt's and Metals' build server
     * (a .json in .bsp names its command), Theia's settings and tasks,
     * rope's config.py (Python), the Lua server's and Solargraph's
     * plugins. */
    {".bsp", "an editor starts the build server command it names"},
    {".theia", "Theia runs its tasks and the programs its settings name"},
    {".ropeproject", "rope runs its config.py when an editor opens the "
		     "project"},
    {".luarc.json", "the Lua language server loads the plugin it names"},
    {".luarc.jsonc", "the Lua language server loads the plugin it names"},
    {".solargraph.yml", "Solargraph loads the plugins it names"},
    /* Toolchains and hooks chosen per folder. */
    {"rust-toolchain", "rustup runs the toolchain it names, a path too"},
    {"rust-toolchain.toml", "rustup runs the toolchain it names, a path "
			    "too"},
    {".huskyrc", "husky runs the hooks it names"},
    {".huskyrc.json", "husky runs the hooks it names"},
    {".huskyrc.js", "husky runs it"},
    {".huskyrc.cjs", "husky runs it"},
    {".huskyrc.yaml", "husky runs the hooks it names"},
    {".huskyrc.yml", "husky runs the hooks it names"},
    {"husky.config.js", "husky runs it"},
    {"husky.config.cjs", "husky runs it"},
    {".overcommit.yml", "overcommit runs the hooks it names"},
    /* Trusted by a tool that sends the project away: the next push uploads
     * to the server these name, or runs them with the project's secrets. */
    {".lfsconfig", "git lfs uploads the next push's files to the server it "
		   "names"},
    {".gitreview", "git review pushes to the host it names"},
    {".circleci", "CI runs its config with the project's secrets"},
    {".travis.yml", "CI runs it with the project's secrets"},
    {"Jenkinsfile", "CI runs it with the project's secrets"},
    {".buildkite", "CI runs its pipeline with the project's secrets"},
    {"azure-pipelines.yml", "CI runs it with the project's secrets"},
    {"bitbucket-pipelines.yml", "CI runs it with the project's secrets"},
    {".drone.yml", "CI runs it with the project's secrets"},
    {".woodpecker.yml", "CI runs it with the project's secrets"},
    {".woodpecker.yaml", "CI runs it with the project's secrets"},
    {".woodpecker", "CI runs its workflows with the project's secrets"},
    {".gitea", "Gitea Actions runs its workflows with the project's secrets"},
    {".forgejo", "Forgejo Actions runs its workflows with the project's "
		 "secrets"},
    {".cirrus.yml", "CI runs it with the project's secrets"},
};

const struct dot_file *dot_files(size_t *n)
{
	*n = ARRAY_SIZE(list);
	return list;
}

bool is_dot_file(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(list); i++)
		if (strcmp(list[i].name, name) == 0)
			return true;
	return false;
}
