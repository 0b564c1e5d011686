# bash completion for trainsim. Subcommands and options are read from the binary's own help
# texts, so completion follows the installed version. Installed as
# share/bash-completion/completions/trainsim by cmake --install.
_trainsim() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local bin=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        local subs
        subs=$("$bin" --help 2>/dev/null |
            awk '/^subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
        COMPREPLY=($(compgen -W "$subs --help --version" -- "$cur"))
        return
    fi
    local sub=${COMP_WORDS[1]}
    case "$cur" in
    -*)
        local opts
        opts=$("$bin" "$sub" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        ;;
    *)
        case "$sub:$COMP_CWORD" in
        list:2) COMPREPLY=($(compgen -W "models accelerators systems software prices attention" -- "$cur")) ;;
        import:2) COMPREPLY=($(compgen -W "hf" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
        ;;
    esac
}
complete -o filenames -o bashdefault -F _trainsim trainsim
