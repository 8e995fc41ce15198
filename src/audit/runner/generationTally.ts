/**
 * What the open questions' generations have done so far, for the time left before questions finish
 * (timeLeft.ts, GenerationWork): per question, the generations back (the repair scan's apart) and
 * the pace of its route search's rounds.
 */
import type { Generation } from '../../engine';
import type { RunSettings } from '../../contract';
import { plannedGenerations } from './auditEstimate';
import type { AuditStage } from './questionSteps';
import type { GenerationWork } from './timeLeft';

export class GenerationTally {
  private readonly perQuestion: { least: number; most: number };
  private readonly searchBudget: number;
  /** Fewest generations per question outside the search's chain and the repair scan. */
  private readonly independentLeast: number;
  private readonly repairPerQuestion: number;
  private returnedAll = 0;
  private cut = 0;
  private cutTokens = 0;
  private readonly back = new Map<string, number>();
  private readonly repairBack = new Map<string, number>();
  private readonly searchBack = new Map<string, number>();
  private readonly lastRound = new Map<string, number>();
  /** Per question, its latest round's time (from its previous round back to this one). */
  private readonly lastInterval = new Map<string, number>();

  constructor(private readonly settings: RunSettings, numBlocks: number) {
    const plan = plannedGenerations(settings, numBlocks);
    const most = Object.values(plan.byStage).reduce((a, b) => a + b, 0);
    // --until-reached: a probe may stop after any attempt, its first included.
    const least = settings.untilReached ? most - settings.probes.reduce((a, p) => a + p.budget - 1, 0) : most;
    this.perQuestion = { least, most };
    this.searchBudget = settings.probes.find((p) => p.name === 'search')?.budget ?? 0;
    this.independentLeast = least - (this.searchBudget > 0 ? (settings.untilReached ? 1 : this.searchBudget) : 0);
    this.repairPerQuestion = plan.repairPerScanned + plan.depthPerFailure + plan.foreclosurePerFailure + plan.forkPerUnrealized;
  }

  returned(stage: AuditStage, gens: readonly Generation[], id: string, atMs: number): void {
    for (const g of gens) {
      this.returnedAll++;
      if (g.finishReason === 'length') {
        this.cut++;
        this.cutTokens += g.tokens.length;
      }
    }
    // The depth probe, its foreclosure window and the fork probe, like the repair scan, run on some questions only, outside the per-question plan.
    const into = stage === 'repair' || stage === 'depth' || stage === 'foreclosure' || stage === 'fork' ? this.repairBack : this.back;
    into.set(id, (into.get(id) ?? 0) + gens.length);
    if (stage !== 'search') return;
    this.searchBack.set(id, (this.searchBack.get(id) ?? 0) + 1);
    const last = this.lastRound.get(id);
    if (last !== undefined) this.lastInterval.set(id, atMs - last);
    this.lastRound.set(id, atMs);
  }

  finished(id: string): void {
    for (const m of [this.back, this.repairBack, this.searchBack, this.lastRound, this.lastInterval]) m.delete(id);
  }

  work(open: number, engineTokens: number | undefined): GenerationWork {
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    const backOpen = sum(this.back);
    const chain = this.chain(open, backOpen);
    return {
      left: { least: Math.max(0, open * this.perQuestion.least - backOpen), most: Math.max(0, open * this.perQuestion.most - backOpen) },
      returned: this.returnedAll,
      cut: this.cut,
      cutTokens: this.cutTokens,
      budget: this.settings.deployment.maxNewTokens,
      ...(engineTokens !== undefined ? { engineTokens } : {}),
      ...(chain ? { chain } : {}),
      ...(this.repairPerQuestion > 0 ? { repairUndecided: Math.max(0, open * this.repairPerQuestion - sum(this.repairBack)) } : {}),
    };
  }

  /**
   * The searches' chain, once it is all that is left before the repair scans: every open question
   * has started its search and their other attempts are back. Its pace is then the latest rounds'
   * (a batch of chains alone); while other work shares the batch, a round takes what a full batch's
   * step takes (measured on 8 GSM8K questions of the 0.5B shape: 131 s a round then, 83 s a round
   * later), and the throughput count is the better guide.
   */
  private chain(open: number, backOpen: number): GenerationWork['chain'] {
    if (this.searchBudget === 0 || open === 0 || this.searchBack.size < open || this.lastInterval.size === 0) return undefined;
    const searchBackOpen = [...this.searchBack.values()].reduce((a, b) => a + b, 0);
    if (open * this.independentLeast - (backOpen - searchBackOpen) > 0) return undefined;
    let roundsLeft = 0;
    for (const n of this.searchBack.values()) roundsLeft = Math.max(roundsLeft, this.searchBudget - n);
    if (roundsLeft === 0) return undefined;
    const intervals = [...this.lastInterval.values()];
    return { roundsLeft, roundSeconds: intervals.reduce((a, b) => a + b, 0) / intervals.length / 1000 };
  }
}
