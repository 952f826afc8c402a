// The design system: small typed components over the tokens in app/globals.css.
export { Badge, type BadgeProps, type BadgeTone } from './badge';
export { Button, buttonClasses, type ButtonProps, type ButtonSize, type ButtonVariant } from './button';
export { Card, CardBody, CardFooter, CardHeader, type CardProps, type CardTone } from './card';
export { CodeBlock, type CodeBlockProps } from './code-block';
export { CopyButton } from './copy-button';
export { cx } from './cx';
export { ConfirmDialog, Dialog, type ConfirmDialogProps, type DialogProps } from './dialog';
export { Disclosure, type DisclosureProps } from './disclosure';
export { EmptyState, type EmptyStateProps } from './empty-state';
export { Field, Input, Select, Textarea, type FieldProps, type InputProps, type SelectProps, type TextareaProps } from './field';
export { HeaderButton, type HeaderButtonProps } from './header-button';
export { HintedSwitch, type HintedSwitchProps } from './hinted-switch';
export { IconButton, iconButtonClasses, type IconButtonProps } from './icon-button';
export { Kbd } from './kbd';
export { Notice, type NoticeProps, type NoticeTone } from './notice';
export { Sheet, type SheetProps } from './sheet';
export { Spinner } from './spinner';
export { Switch, type SwitchProps } from './switch';
