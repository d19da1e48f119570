/** Values under string keys, each dropped when one of its users changes or, if it depends on them, any team. */
export class ByUserAndTeam<V> {
  private readonly values = new Map<string, V>();
  private readonly keysByUser = new Map<number, Set<string>>();
  private readonly teamKeys = new Set<string>();

  get size(): number {
    return this.values.size;
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V, userIds: readonly number[], dependsOnTeams: boolean): void {
    this.values.set(key, value);
    for (const userId of userIds) {
      let keys = this.keysByUser.get(userId);
      if (!keys) this.keysByUser.set(userId, (keys = new Set()));
      keys.add(key);
    }
    if (dependsOnTeams) this.teamKeys.add(key);
  }

  dropUser(userId: number, onDrop?: (value: V) => void): void {
    for (const key of this.keysByUser.get(userId) ?? []) this.drop(key, onDrop);
    this.keysByUser.delete(userId);
  }

  dropTeams(onDrop?: (value: V) => void): void {
    for (const key of this.teamKeys) this.drop(key, onDrop);
    this.teamKeys.clear();
  }

  clear(): void {
    this.values.clear();
    this.keysByUser.clear();
    this.teamKeys.clear();
  }

  private drop(key: string, onDrop?: (value: V) => void): void {
    const value = this.values.get(key);
    if (value === undefined) return;
    this.values.delete(key);
    onDrop?.(value);
  }
}
