# bash completion for attn
_attn() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    local sub=""
    local i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            explain|init|train|worksheet|check|diff|examples) sub=${COMP_WORDS[i]}; break ;;
        esac
    done
    case $prev in
        --mask) COMPREPLY=($(compgen -W "none causal" -- "$cur") $(compgen -f -X '!*.json' -- "$cur")); return ;;
        --positions) COMPREPLY=($(compgen -W "none sinusoidal" -- "$cur") $(compgen -f -X '!*.json' -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text markdown latex none" -- "$cur")); return ;;
        --arith) COMPREPLY=($(compgen -W "exact hand" -- "$cur")); return ;;
        --scale-by) COMPREPLY=($(compgen -W "d_k d_model none" -- "$cur")); return ;;
        --softmax-over) COMPREPLY=($(compgen -W "rows columns all" -- "$cur")); return ;;
        --layout) COMPREPLY=($(compgen -W "row col" -- "$cur")); return ;;
        --theme) COMPREPLY=($(compgen -W "auto light dark" -- "$cur")); return ;;
        --unknown) COMPREPLY=($(compgen -W "error random" -- "$cur")); return ;;
        --model|--embeddings|--weights|--qkv)
            local examples
            examples=$(attn examples --names 2>/dev/null)
            COMPREPLY=($(compgen -W "$examples" -- "$cur") $(compgen -f -- "$cur")); return ;;
        --from|--json|--html|--svg|--npz|--target|-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --checkpoint) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --head) COMPREPLY=($(compgen -W "all" -- "$cur")); return ;;
        --steps)
            if [ "$sub" = explain ]; then
                # the id after the last comma; a head's step without head1. is every head's
                local before=${cur%"${cur##*,}"}
                COMPREPLY=($(compgen -P "$before" -W "tokens embeddings positions with_positions W_Q W_K W_V
                    Q K V scores scaled_scores mask masked_scores weights output concat W_O head1 head2" -- "${cur##*,}"))
            fi
            return ;;
        --seed|--d-model|--d-k|--d-v|--heads|--layer|--threads|--pad-to|--max-memory|--precision|--width|--why|--set|--epochs|--blank|--tolerance|--relative-tolerance|--description|--lr)
            return ;;
    esac
    local opts
    case $sub in
        explain) opts="--seed --d-model --heads --d-k --d-v --mask --positions --pad-to --max-memory --lowercase
                       --chars --scale-by --no-scale --softmax-over --arith --embeddings --weights --model --qkv --unknown --from
                       --precision --steps --layout --present --pause --quiet-text --color --theme --width --ascii
                       --json --format --svg --html --npz --why --set --head --checkpoint --layer --stats --threads --target --backward --lr
                       --force --help" ;;
        init) opts="--seed --d-model --heads --d-k --d-v --mask --lowercase --chars --description
                    --output --force --help" ;;
        train) opts="--output --seed --lr --steps --epochs --d-model --d-k --d-v --heads --threads
                     --max-memory --no-scale --svg --force --help"
               [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "coreference previous-token match" -- "$cur")); return; } ;;
        worksheet) opts="--seed --d-model --d-k --d-v --mask --lowercase --model --qkv --layout --arith --blank --output
                         --force --max-memory --help" ;;
        check) opts="--tolerance --relative-tolerance --precision --ascii --max-memory --help"
               [[ $cur != -* ]] && { COMPREPLY=($(compgen -f -X '!*.json' -- "$cur")); return; } ;;
        diff) opts="--precision --steps --layout --quiet-text --color --theme --width --ascii --present --pause --html
                    --format --max-memory --force --help"
              [[ $cur != -* ]] && { COMPREPLY=($(compgen -f -X '!*.json' -- "$cur")); return; } ;;
        examples) opts="--names --help" ;;
        *) opts="explain init train worksheet check diff examples --version --help" ;;
    esac
    [[ $cur == -* || -z $sub ]] && COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o filenames -F _attn attn
