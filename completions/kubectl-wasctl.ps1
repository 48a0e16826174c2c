
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land')
            [CompletionResult]::new('capacity', 'capacity', [CompletionResultType]::ParameterValue, 'Count how many more copies of a gang fit, and where; what stops the next copy')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare the plans of two snapshots: which units changed and which changes caused it')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write the loaded objects and cluster facts to one file that `--from` reads back')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, commit and supported Kubernetes version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-wasctl;explain' {
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit with 1 when the target is not schedulable (Waiting, Unschedulable, NeedsPreemption)')
            [CompletionResult]::new('--no-preemption', '--no-preemption', [CompletionResultType]::ParameterName, 'Do not simulate preemption: unschedulable units stay unschedulable')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--no-preemption', '--no-preemption', [CompletionResultType]::ParameterName, 'Do not simulate preemption: unschedulable units stay unschedulable')
            [CompletionResult]::new('--devices', '--devices', [CompletionResultType]::ParameterName, 'Also show which device goes to which claim, pod and gang (a per-node device map)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;capacity' {
            [CompletionResult]::new('--shape', '--shape', [CompletionResultType]::ParameterName, 'Copy the gang in this manifest instead: one PodGroup and its pods, one Job (its `spec.scheduling` and pod template), or one Workload with one PodGroup template and its pods')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'The most copies to try')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Count copies per value of this node label (default: the gang''s topology key)')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--no-preemption', '--no-preemption', [CompletionResultType]::ParameterName, 'Do not simulate preemption: unschedulable units stay unschedulable')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;diff' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'NEW: YAML/JSON files or directories (`-` for stdin). Without it, NEW is the cluster of the current context, or OLD with the what-ifs below applied')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--no-preemption', '--no-preemption', [CompletionResultType]::ParameterName, 'Do not simulate preemption: unschedulable units stay unschedulable')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;doctor' {
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding has this severity or a higher one (default: always exit 0)')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Run only these checks (`WASD001`…); repeatable or comma-separated')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Skip these checks; repeatable or comma-separated')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--list-checks', '--list-checks', [CompletionResultType]::ParameterName, 'Print the check table and exit')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;lint' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'More files, directories or `-`, as `kubectl apply -f` takes them')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'More files, directories or `-`, as `kubectl apply -f` takes them')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding has this severity or a higher one')
            [CompletionResult]::new('--target-version', '--target-version', [CompletionResultType]::ParameterName, 'The Kubernetes version to lint for (only `1.37`)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Rule selection and severities (`lint: {enable, disable, severity, targetVersion}`)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`. Repeatable')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, optionally to a file: `text`, `json`, `sarif=out.sarif`, `junit=…`, `github`. Repeatable')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Print the documentation of a rule (`WAS101` or `invalid-object-name`) and exit')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: `KUBECONFIG`, then `~/.kube/config`)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to show (live default: the context''s namespace)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read objects from YAML/JSON files or directories instead of a cluster (`-` for stdin)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Report fields the Kubernetes 1.37 types do not have (`WAS003`)')
            [CompletionResult]::new('--reject-unknown', '--reject-unknown', [CompletionResultType]::ParameterName, 'Kinds wasctl does not check are errors (default: "not checked" info findings)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'Also look objects up in the current kubeconfig context (cluster-aware rules)')
            [CompletionResult]::new('--feasibility', '--feasibility', [CompletionResultType]::ParameterName, 'Simulate the linted gangs on the cluster''s nodes with nothing running (`WAS312`; needs `--from`, `--demo` or `--cluster`)')
            [CompletionResult]::new('--list-rules', '--list-rules', [CompletionResultType]::ParameterName, 'Print the rule table and exit')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
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
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates for every component, e.g. `GenericWorkload=true,CompositePodGroup=false` (may be repeated; later values win)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Show every namespace')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Use the embedded demo cluster')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-wasctl;help' {
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Say why a gang is (or would be) unschedulable, with the numbers and verified fixes')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'Dry-run kube-scheduler 1.37 over the snapshot: where every pending gang would land')
            [CompletionResult]::new('capacity', 'capacity', [CompletionResultType]::ParameterValue, 'Count how many more copies of a gang fit, and where; what stops the next copy')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare the plans of two snapshots: which units changed and which changes caused it')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Find what is broken or leaking in the cluster: orphans, skew, gang health, DRA (`WASD###`)')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show Workload → CompositePodGroup → PodGroup → Pod → ResourceClaim with status')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check manifests against the 1.37 WAS validation and cross-object rules (`WAS###`)')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write the loaded objects and cluster facts to one file that `--from` reads back')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version, commit and supported Kubernetes version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-wasctl;help;explain' {
            break
        }
        'kubectl-wasctl;help;simulate' {
            break
        }
        'kubectl-wasctl;help;capacity' {
            break
        }
        'kubectl-wasctl;help;diff' {
            break
        }
        'kubectl-wasctl;help;doctor' {
            break
        }
        'kubectl-wasctl;help;tree' {
            break
        }
        'kubectl-wasctl;help;lint' {
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
