/**
 * The enabled/auto state of each package per network, as the platform keeps it: what a package's
 * `ctx.packageState({ projectId })` answers (cheap, synchronous, never starts a runtime), and
 * the network's MCP-hosting enable list — an in-process MCP connector's tools are served in a
 * network only while its package is enabled there.
 *
 * A package is enabled in a network when it was enabled for that network (`enable`), or for the
 * whole deployment (`enableEverywhere`, as `McpHostOptions.hostedPackages` / `inseam mcp
 * --host-package` do). `auto` tells a package enabled automatically (by the deployment's own
 * configuration, with no person deciding) from one a person switched on. A per-network entry
 * wins over the deployment's, and `disable` switches a package off in one network even when the
 * deployment enables it. The state is the running process's: it is given at start, not stored.
 */
import type { PackageState } from '@neuralis/package-system/contracts';

const OFF: PackageState = Object.freeze({ enabled: false, auto: false });

export class PackageStates {
  readonly #everywhere = new Map<string, PackageState>();
  readonly #networks = new Map<string, Map<string, PackageState>>();

  /** Enables a package in one network. */
  enable(network: string, packageId: string, options: { readonly auto?: boolean } = {}): void {
    this.#network(network).set(packageId, Object.freeze({ enabled: true, auto: options.auto === true }));
  }

  /** Switches a package off in one network, whatever the deployment enables. */
  disable(network: string, packageId: string): void {
    this.#network(network).set(packageId, OFF);
  }

  /** Enables a package in every network (unless one disables it). */
  enableEverywhere(packageId: string, options: { readonly auto?: boolean } = {}): void {
    this.#everywhere.set(packageId, Object.freeze({ enabled: true, auto: options.auto === true }));
  }

  /** The package's state in `network`; without one, the deployment's. */
  state(packageId: string, network?: string): PackageState {
    const own = network === undefined ? undefined : this.#networks.get(network)?.get(packageId);
    return own ?? this.#everywhere.get(packageId) ?? OFF;
  }

  /** Whether the package is on the network's hosting enable list. */
  enabled(packageId: string, network: string): boolean {
    return this.state(packageId, network).enabled;
  }

  #network(network: string): Map<string, PackageState> {
    let states = this.#networks.get(network);
    if (states === undefined) {
      states = new Map();
      this.#networks.set(network, states);
    }
    return states;
  }
}
