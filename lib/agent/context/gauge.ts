import { processSingleton } from '@/lib/process-singleton';

/** The latest ratio per model in this process: a new drive starts from it rather than from nothing. */
const latestRatio = processSingleton('tokenGaugeRatios', () => new Map<string, number>());

/**
 * The local estimate of a request's input tokens (JSON length / 4, ../token-estimate.ts),
 * calibrated against what the API counted for this drive's earlier requests: the usage a step
 * reports, an exact count (`messages.countTokens`) asked for near the limit, or the size a
 * "prompt is too long" error names. One ratio, the latest, is enough: the content of one
 * conversation tokenizes alike from step to step. A figure far off the estimate (a model that
 * reports no real usage) is not taken. A drive starts from the ratio this process last saw for the
 * model (one model's tokenizer treats most conversations alike; another instance simply starts
 * at 1, and the margin and the exact count near the limit cover the difference).
 */
export class TokenGauge {
  private ratio: number;

  constructor(private readonly model: string) {
    this.ratio = latestRatio.get(model) ?? 1;
  }

  estimate(raw: number): number {
    return Math.ceil(raw * this.ratio);
  }

  /** The API counted `actual` input tokens for a request whose raw estimate was `raw`. */
  calibrate(raw: number, actual: number): void {
    if (raw <= 0 || !Number.isFinite(actual) || actual <= 0) return;
    const ratio = actual / raw;
    if (ratio < RATIO.min || ratio > RATIO.max) return;
    this.ratio = ratio;
    latestRatio.set(this.model, ratio);
  }

  get calibration(): number {
    return this.ratio;
  }
}

/** Ratios a real tokenizer gives for text, code and JSON against the estimate; outside them the figure is not a count. */
const RATIO = { min: 0.4, max: 3 } as const;
