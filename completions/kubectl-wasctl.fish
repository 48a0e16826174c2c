# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_wasctl_global_optspecs
    string join \n kubeconfig= context= n/namespace= A/all-namespaces from= demo feature-gates= color= h/help V/version
end

function __fish_kubectl_wasctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_wasctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_wasctl_using_subcommand
    set -l cmd (__fish_kubectl_wasctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l feature-gates -d 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "simulate" -d 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "tree" -d 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "snapshot" -d 'Write the loaded objects and cluster facts to one file that `--from` reads back'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "version" -d 'Print the version, commit and supported Kubernetes version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l only -d 'Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l add -d 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l drain -d 'Drain these nodes first (cordon; controller-owned pods become pending again)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l cordon -d 'Cordon these nodes first' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l add-nodes -d 'Add N copies of the `--like` node' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l like -d 'The node `--add-nodes` copies' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l mode -d '`exhaustive`: filter and score every node; `compat`: upstream\'s node sampling' -r -f -a "exhaustive\t'Filter and score every node'
compat\t'Upstream\'s adaptive `percentageOfNodesToScore` sampling'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l feature-gates -d 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l feature-gates -d 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s o -l output -d 'Output format' -r -f -a "yaml\t'A YAML document stream'
json\t'One JSON `List`'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l file -d 'Write to this file instead of stdout' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l feature-gates -d 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s o -l output -d 'Output format' -r -f -a "text\t'Human-readable text'
json\t'JSON (`apiVersion: wasctl.dev/v1alpha1`)'
yaml\t'YAML, the same data as JSON'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s n -l namespace -d 'The namespace to show (live default: the context\'s namespace)' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l from -d 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)' -r -F
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l feature-gates -d 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`' -r
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l color -d 'When to use colors' -r -f -a "auto\t'Color on a terminal when `NO_COLOR` is unset'
always\t'Always color'
never\t'Never color'"
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s A -l all-namespaces -d 'Show every namespace'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -l demo -d 'Use the embedded demo cluster'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from simulate tree snapshot version help" -f -a "simulate" -d 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from simulate tree snapshot version help" -f -a "tree" -d 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from simulate tree snapshot version help" -f -a "snapshot" -d 'Write the loaded objects and cluster facts to one file that `--from` reads back'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from simulate tree snapshot version help" -f -a "version" -d 'Print the version, commit and supported Kubernetes version'
complete -c kubectl-wasctl -n "__fish_kubectl_wasctl_using_subcommand help; and not __fish_seen_subcommand_from simulate tree snapshot version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
