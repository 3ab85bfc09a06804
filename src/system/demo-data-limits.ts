// The demo network's size limit, apart from the generator so the CLI can name it in its help without loading it.
export const MAX_DEMO_DEVICES = 200_000;
