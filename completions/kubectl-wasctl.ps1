
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-wasctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-wasctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-wasctl' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write the loaded objects and cluster facts to one file that `--from` reads back')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, commit and supported Kubernetes version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-wasctl;simulate' {
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Simulate only this unit (`pg/NAME`, `cpg/NAME`, `pod/NAME`); the rest of the queue is ignored')
            [CompletionResult]::new('--add', '--add', [CompletionResultType]::ParameterName, 'Add the objects of these manifests (new pending PodGroups, pods, nodes…) before simulating')
            [CompletionResult]::new('--drain', '--drain', [CompletionResultType]::ParameterName, 'Drain these nodes first (cordon; controller-owned pods become pending again)')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'Cordon these nodes first')
            [CompletionResult]::new('--add-nodes', '--add-nodes', [CompletionResultType]::ParameterName, 'Add N copies of the `--like` node')
            [CompletionResult]::new('--like', '--like', [CompletionResultType]::ParameterName, 'The node `--add-nodes` copies')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, '`exhaustive`: filter and score every node; `compat`: upstream''s node sampling')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;tree' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;snapshot' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Write to this file instead of stdout')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;version' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates, e.g. `GenericWorkload=true,CompositePodGroup=false`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;help' {
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write the loaded objects and cluster facts to one file that `--from` reads back')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, commit and supported Kubernetes version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-wasctl;help;simulate' {
            break
        }
        'kubectl-wasctl;help;tree' {
            break
        }
        'kubectl-wasctl;help;snapshot' {
            break
        }
        'kubectl-wasctl;help;version' {
            break
        }
        'kubectl-wasctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
