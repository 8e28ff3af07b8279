/* Rule P's walk (docs/runs-outside.md): the links of the home's
 * configuration, wherever a dotfiles manager puts them, each handed to the
 * caller, which protects its whole chain as far as it runs inside a write
 * folder (protect.c).
 *
 * Threat: GNU stow, home-manager or a dotfiles repository link the home's
 * configuration into a folder of the user's (~/.bashrc -> dotfiles/bashrc),
 * and with --write ~/dotfiles a program appends to what bash sources. Stow
 * links a file, not its folder, when the folder exists already, so the
 * links lie below folders that programs made: ~/.ssh/config (~/.ssh holds
 * the keys), ~/.ssh/config.d/work (ssh's Include), ~/.config/fish/
 * functions/fish_prompt.fish, ~/.config/systemd/user/x.service,
 * ~/.local/bin/x, ~/.local/share/applications/x.desktop,
 * ~/.local/share/bash-completion/completions/x.
 *
 * Where it looks: the links among the home's dot names and among the
 * entries of the configuration folder (~/.config, and XDG_CONFIG_HOME's)
 * and of the data folder (~/.local/share, and XDG_DATA_HOME's), which
 * hold programs' code as the configuration folder holds their settings
 * (desktop entries, shell completions, editor plugins); then, in each of
 * those entries that is a folder (a "top": ~/.ssh, ~/.config/fish,
 * ~/.local/share/applications), its links and those of its subfolders,
 * one level down (HOME_LINKS_DEPTH). Why one: the folders that exist
 * before stow runs are the ones programs make for their files, one level
 * below their own (config.d, functions, systemd/user, .local/bin); a
 * second level more (~/.config/nvim/lua/user/x.lua) is a folder stow
 * makes itself, whole, as a link (tree folding), unless the user made it
 * by hand; and it would list every folder of ~/.cache/go-build or
 * ~/.vscode/extensions at every start it changed.
 *
 * Bounds, so that a start never crawls and no folder starves another:
 * at most HOME_LINKS_BELOW folders below one top, and HOME_LINKS_TOTAL
 * folders in all. A program that may write one configuration folder could
 * pad it with thousands of subfolders; its own bound runs out first, and
 * the run is refused naming it (a link past a bound would be missed, and
 * what it leads to be the program's to change: never skipped in silence).
 * The refusal says which folder and what to do: remove the folders that
 * are not needed there. */
#pragma once

#include "common/err.h"
#include "guard/linkcache.h"

/* Levels of subfolders below a top whose links are followed. */
#define HOME_LINKS_DEPTH 1
/* Folders listed below one top: a program's configuration or data folder
 * holds a few dozen; ~/.cache a hundred or two. */
#define HOME_LINKS_BELOW 512
/* Folders listed in all, tops and below: some 8 ms at a cached folder's
 * one stat, 80 ms when all are listed anew. */
#define HOME_LINKS_TOTAL 8192
/* Links found in all: each is followed to its target, at a cost. */
#define HOME_LINKS_LINKS 4096

struct home_links_in {
	const char *home;	 /* the home, its real path */
	const char *xdg_config;	 /* XDG_CONFIG_HOME, or NULL */
	const char *xdg_data;	 /* XDG_DATA_HOME, or NULL */
	struct linkcache *cache; /* the listings of earlier runs */
	/* called with each link found and why it is kept */
	void (*found)(void *ctx, const char *link, const char *why);
	void *ctx;
};

/* Walks the home's configuration for links. 0, or -E2BIG with err set
 * (naming the folder) when a bound was reached. */
int home_links_walk(const struct home_links_in *in, struct lnk_err *err);
