
use builtin;
use str;

set edit:completion:arg-completer[kubectl-wasctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kubectl-wasctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kubectl-wasctl'= {
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand simulate 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
            cand tree 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
            cand snapshot 'Write the loaded objects and cluster facts to one file that `--from` reads back'
            cand version 'Print the version, commit and supported Kubernetes version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-wasctl;simulate'= {
            cand --only 'Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored'
            cand --add 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating'
            cand --drain 'Drain these nodes first (cordon; controller-owned pods become pending again)'
            cand --cordon 'Cordon these nodes first'
            cand --add-nodes 'Add N copies of the `--like` node'
            cand --like 'The node `--add-nodes` copies'
            cand --mode '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;tree'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;snapshot'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --file 'Write to this file instead of stdout'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;version'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --kubeconfig 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)'
            cand --context 'The kubeconfig context to use'
            cand -n 'The namespace to show (live default: the context''s namespace)'
            cand --namespace 'The namespace to show (live default: the context''s namespace)'
            cand --from 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)'
            cand --feature-gates 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`'
            cand --color 'When to use colors'
            cand -A 'Show every namespace'
            cand --all-namespaces 'Show every namespace'
            cand --demo 'Use the embedded demo cluster'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-wasctl;help'= {
            cand simulate 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
            cand tree 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
            cand snapshot 'Write the loaded objects and cluster facts to one file that `--from` reads back'
            cand version 'Print the version, commit and supported Kubernetes version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-wasctl;help;simulate'= {
        }
        &'kubectl-wasctl;help;tree'= {
        }
        &'kubectl-wasctl;help;snapshot'= {
        }
        &'kubectl-wasctl;help;version'= {
        }
        &'kubectl-wasctl;help;help'= {
        }
    ]
    $completions[$command]
}
